//! The plan picture as text: one row per node (or group of identical nodes), one cell per
//! accelerator, with or without ANSI colour.

use std::fmt::Write;

use resource_pool_core::words::noun;

use super::picture::{
    Cell, GROUP_ROW_NOTE, More, PendingGroup, Picture, Row, Segment, pool_letter,
};

/// Node names longer than this are cut (with `…`).
const MAX_NAME: usize = 32;

/// ANSI foreground colours of the pools, in pool order (red is kept for what pends).
const PALETTE: [&str; 10] = ["32", "34", "35", "36", "33", "92", "94", "95", "96", "93"];

const RESET: &str = "\x1b[0m";
const DIM: &str = "\x1b[2m";
const PENDING_STYLE: &str = "\x1b[1;31m";

/// The glyph of a free cell.
pub const FREE: &str = "·";
/// The glyph of a cell held by something else.
pub const BUSY: &str = "#";
/// The glyph of a cell of a dead node.
pub const DEAD: &str = "x";

/// The ANSI style of pool `pool`'s cells.
fn pool_style(pool: usize) -> String {
    format!("\x1b[1;{}m", PALETTE[pool % PALETTE.len()])
}

/// A cell's label: `A0` for one node's slot, `A*` in a group row, a glyph otherwise.
pub fn cell_label(cell: &Cell) -> String {
    match cell {
        Cell::Held {
            pool,
            slot: Some(slot),
        } => format!("{}{slot}", pool_letter(*pool)),
        Cell::Held { pool, slot: None } => format!("{}*", pool_letter(*pool)),
        Cell::Free => FREE.to_owned(),
        Cell::Busy => BUSY.to_owned(),
        Cell::Dead => DEAD.to_owned(),
    }
}

/// The widest cell label of the picture.
pub fn cell_width(picture: &Picture) -> usize {
    picture
        .rows
        .iter()
        .flat_map(|r| &r.segments)
        .chain(picture.pending.iter().map(|p| &p.segment))
        .flat_map(|s| &s.cells)
        .map(|c| shown_width(&cell_label(c)))
        .max()
        .unwrap_or(1)
}

/// A row's name: its node, or `first … last` for a group.
pub fn row_name(row: &Row) -> String {
    match &row.last {
        Some(last) => format!("{} … {}", cut(&row.first), cut(last)),
        None => cut(&row.first),
    }
}

/// The columns `text` takes in a terminal: two for a CJK character, none for a
/// combining mark.
pub fn shown_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `id` cut to at most [`MAX_NAME`] columns, ending in `…` when cut.
fn cut(id: &str) -> String {
    if shown_width(id) <= MAX_NAME {
        return id.to_owned();
    }
    let mut out = String::new();
    let mut width = 0;
    for c in id.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if width + w > MAX_NAME - 1 {
            break;
        }
        width += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// Text with the width it shows (escape codes take none).
struct Styled {
    text: String,
    width: usize,
}

impl Styled {
    fn new() -> Styled {
        Styled {
            text: String::new(),
            width: 0,
        }
    }

    fn push(&mut self, text: &str, style: Option<&str>, colour: bool) {
        match style {
            Some(style) if colour => {
                self.text.push_str(style);
                self.text.push_str(text);
                self.text.push_str(RESET);
            }
            _ => self.text.push_str(text),
        }
        self.width += shown_width(text);
    }

    fn pad_to(&mut self, width: usize) {
        while self.width < width {
            self.text.push(' ');
            self.width += 1;
        }
    }
}

fn cell_style(cell: &Cell) -> Option<String> {
    match cell {
        Cell::Held { pool, .. } => Some(pool_style(*pool)),
        Cell::Free | Cell::Busy => Some(DIM.to_owned()),
        Cell::Dead => Some("\x1b[2;31m".to_owned()),
    }
}

fn draw_segments(segments: &[Segment], width: usize, colour: bool) -> Styled {
    let mut out = Styled::new();
    if segments.is_empty() {
        out.push("(no accelerators)", Some(DIM), colour);
        return out;
    }
    for (i, segment) in segments.iter().enumerate() {
        if i > 0 {
            out.push("  ", None, colour);
        }
        out.push(segment.accelerator, None, colour);
        for cell in &segment.cells {
            out.push(" ", None, colour);
            let label = cell_label(cell);
            let pad = width.saturating_sub(shown_width(&label));
            out.push(&label, cell_style(cell).as_deref(), colour);
            out.push(&" ".repeat(pad), None, colour);
        }
        if segment.hidden > 0 {
            out.push(&format!(" +{}", segment.hidden), None, colour);
        }
    }
    // Padding after the last cell is not drawn.
    let trimmed = out.text.trim_end().len();
    let removed = out.text.len() - trimmed;
    out.text.truncate(trimmed);
    out.width -= removed;
    out
}

fn pending_line(p: &PendingGroup, width: usize, colour: bool) -> String {
    let mut out = Styled::new();
    out.push("  ", None, colour);
    out.push("PENDING", Some(PENDING_STYLE), colour);
    out.push(&format!(" {}  ", p.name), None, colour);
    let cells = draw_segments(std::slice::from_ref(&p.segment), width, colour);
    out.text.push_str(&cells.text);
    out.width += cells.width;
    out.push(&format!("  CPU {}  {}", p.cpu, p.state), None, colour);
    if let Some(nearest) = &p.nearest {
        out.push(&format!("; nearest {nearest}"), None, colour);
    }
    out.text
}

/// `… and 60 more nodes in 60 more groups` (`in at least …` when not counted to the end).
pub fn more_line(more: &More) -> String {
    let bound = if more.groups_exact { "" } else { "at least " };
    format!(
        "… and {} more {} in {bound}{} more {}",
        more.nodes,
        noun(more.nodes, "node"),
        more.groups,
        noun(more.groups, "group")
    )
}

/// Draws `picture` as text, one line per row, ending in a newline; with ANSI colour when
/// `colour` is true.
pub fn render_text(picture: &Picture, colour: bool) -> String {
    let width = cell_width(picture);
    let names: Vec<String> = picture.rows.iter().map(row_name).collect();
    let name_width = names.iter().map(|n| shown_width(n)).max().unwrap_or(0);
    let drawn: Vec<Styled> = picture
        .rows
        .iter()
        .map(|r| draw_segments(&r.segments, width, colour))
        .collect();
    let cells_width = drawn.iter().map(|d| d.width).max().unwrap_or(0);
    let mut out = format!("{}\n", picture.title);
    for ((row, name), mut cells) in picture.rows.iter().zip(&names).zip(drawn) {
        let mut line = Styled::new();
        line.push("  ", None, colour);
        line.push(name, None, colour);
        line.pad_to(2 + name_width);
        line.push("  ", None, colour);
        cells.pad_to(cells_width);
        line.text.push_str(&cells.text);
        line.push(
            &format!("  CPU {}/{}", row.cpu_used, row.cpu_available),
            None,
            colour,
        );
        if row.count > 1 {
            line.push(&format!("  ×{}", row.count), None, colour);
        }
        if !row.alive {
            line.push("  DEAD", Some(PENDING_STYLE), colour);
        }
        if !row.nearest_for.is_empty() {
            line.push(
                &format!("  ◂ nearest for {}", row.nearest_for.join(", ")),
                None,
                colour,
            );
        }
        let _ = writeln!(out, "{}", line.text);
    }
    if let Some(more) = &picture.more {
        let _ = writeln!(out, "  {}", more_line(more));
    }
    for p in &picture.pending {
        let _ = writeln!(out, "{}", pending_line(p, width, colour));
    }
    if picture.pending_hidden > 0 {
        let _ = writeln!(
            out,
            "  … and {} more pending groups",
            picture.pending_hidden
        );
    }
    for (groups, waits) in &picture.not_created {
        let _ = writeln!(
            out,
            "  not created: {groups} (verl waits on {waits} forever)"
        );
    }
    let mut legend = Styled::new();
    legend.push("  legend:", None, colour);
    let mut first = true;
    let mut sep = |legend: &mut Styled| {
        legend.push(if first { " " } else { ", " }, None, colour);
        first = false;
    };
    for entry in &picture.legend {
        sep(&mut legend);
        legend.push(&entry.letter, Some(&pool_style(entry.pool)), colour);
        legend.push(
            &format!(" = {} ({})", entry.name, entry.slots),
            None,
            colour,
        );
    }
    let glyphs = [
        (picture.glyphs.free, FREE, "free"),
        (picture.glyphs.busy, BUSY, "held by others"),
        (picture.glyphs.dead, DEAD, "dead node"),
    ];
    for (shown, glyph, what) in glyphs {
        if shown {
            sep(&mut legend);
            legend.push(glyph, Some(DIM), colour);
            legend.push(&format!(" {what}"), None, colour);
        }
    }
    if picture.rows.iter().any(|r| r.count > 1) {
        sep(&mut legend);
        legend.push(GROUP_ROW_NOTE, None, colour);
    }
    if !first {
        let _ = writeln!(out, "{}", legend.text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_line_agrees_with_its_counts() {
        let one = More {
            nodes: 1,
            groups: 1,
            groups_exact: true,
        };
        assert_eq!(more_line(&one), "… and 1 more node in 1 more group");
        let many = More {
            nodes: 3,
            groups: 2,
            groups_exact: false,
        };
        assert_eq!(
            more_line(&many),
            "… and 3 more nodes in at least 2 more groups"
        );
    }
}
