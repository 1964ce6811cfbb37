//! The plan pictures as one SVG document, drawn by hand (no dependency): the same rows,
//! cells, legend and pending groups as the text, stacked one picture under the other.

use std::fmt::Write;

use super::picture::{Cell, GROUP_ROW_NOTE, Picture, Segment};
use super::text::{BUSY, DEAD, FREE, cell_label, cell_width, more_line, row_name, shown_width};

/// Fill colours of the pools, in pool order (the text's ANSI colours, as hex).
const PALETTE: [&str; 10] = [
    "#2e8b3e", "#3366cc", "#9c3cb0", "#1b8f9a", "#b8860b", "#5aa84a", "#5f7fd6", "#c266cc",
    "#3fb0bb", "#d4a82a",
];

const FONT: f64 = 12.0;
/// Width of one character of the monospace font, roughly.
const CHAR: f64 = 7.3;
const ROW: f64 = 24.0;
const CELL_H: f64 = 18.0;
const GAP: f64 = 3.0;
const MARGIN: f64 = 12.0;

/// Escapes text for XML character data and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0.
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' && c != '\r' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn text_width(text: &str) -> f64 {
    shown_width(text) as f64 * CHAR
}

struct Canvas {
    body: String,
    y: f64,
    width: f64,
}

impl Canvas {
    fn text(&mut self, x: f64, text: &str, attrs: &str) {
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{:.1}"{attrs}>{}</text>"#,
            self.y + CELL_H - 5.0,
            escape(text)
        );
        self.width = self.width.max(x + text_width(text));
    }

    /// Draws the cells of `segments` from `x`; returns where they end.
    fn segments(&mut self, mut x: f64, segments: &[Segment], cell_w: f64, pending: bool) -> f64 {
        if segments.is_empty() {
            self.text(x, "(no accelerators)", r##" fill="#888""##);
            return x + text_width("(no accelerators)");
        }
        for segment in segments {
            self.text(x, segment.accelerator, "");
            x += text_width(segment.accelerator) + GAP * 2.0;
            for cell in &segment.cells {
                let (fill, stroke, ink) = match cell {
                    Cell::Held { pool, .. } => (PALETTE[pool % PALETTE.len()], "none", "#fff"),
                    Cell::Free => ("#fff", "#999", "#999"),
                    Cell::Busy => ("#ccc", "#999", "#555"),
                    Cell::Dead => ("#f3d6d6", "#c33", "#c33"),
                };
                let stroke = if pending { "#d00" } else { stroke };
                let dash = if pending {
                    r#" stroke-dasharray="3 2""#
                } else {
                    ""
                };
                let _ = writeln!(
                    self.body,
                    r#"<rect x="{x:.1}" y="{:.1}" width="{cell_w:.1}" height="{CELL_H:.1}" rx="2" fill="{fill}" stroke="{stroke}"{dash}/>"#,
                    self.y
                );
                let label = cell_label(cell);
                let label = if matches!(cell, Cell::Free) {
                    String::new()
                } else {
                    label
                };
                if !label.is_empty() {
                    let _ = writeln!(
                        self.body,
                        r#"<text x="{:.1}" y="{:.1}" fill="{ink}" font-size="10" text-anchor="middle">{}</text>"#,
                        x + cell_w / 2.0,
                        self.y + CELL_H - 5.0,
                        escape(&label)
                    );
                }
                x += cell_w + GAP;
            }
            if segment.hidden > 0 {
                let more = format!("+{}", segment.hidden);
                self.text(x, &more, "");
                x += text_width(&more);
            }
            x += GAP * 3.0;
        }
        self.width = self.width.max(x);
        x
    }
}

/// Draws `pictures` as one SVG document (`<?xml …?>` to `</svg>`).
pub fn render_svg(pictures: &[Picture]) -> String {
    let mut canvas = Canvas {
        body: String::new(),
        y: MARGIN,
        width: 0.0,
    };
    if pictures.is_empty() {
        canvas.text(MARGIN, "No plan: nothing to draw.", "");
        canvas.y += ROW;
    }
    for picture in pictures {
        canvas.picture(picture);
    }
    canvas.document()
}

impl Canvas {
    /// One picture, under the last: its title, node rows, pending groups and legend.
    fn picture(&mut self, picture: &Picture) {
        self.text(MARGIN, &picture.title, r#" font-weight="bold""#);
        self.y += ROW;
        let cell_w = (cell_width(picture) as f64 * CHAR + 6.0).max(20.0);
        self.rows(picture, cell_w);
        self.pending(picture, cell_w);
        self.legend(picture);
        if picture.rows.iter().any(|r| r.count > 1) {
            self.y += ROW;
            self.text(MARGIN * 2.0, GROUP_ROW_NOTE, "");
        }
        self.y += ROW * 1.5;
    }

    /// The node rows, one a line: the name, the cells, then the CPUs and notes in one
    /// column after the widest row; and the line on the rows not shown.
    fn rows(&mut self, picture: &Picture, cell_w: f64) {
        let names: Vec<String> = picture.rows.iter().map(row_name).collect();
        let name_w = names.iter().map(|n| text_width(n)).fold(0.0, f64::max);
        let cells_x = MARGIN * 2.0 + name_w + GAP * 3.0;
        let cells_w = cells_width(picture, cell_w);
        for (row, name) in picture.rows.iter().zip(&names) {
            let ink = if row.alive { "" } else { r##" fill="#c33""## };
            self.text(MARGIN * 2.0, name, ink);
            self.segments(cells_x, &row.segments, cell_w, false);
            let mut info = format!("CPU {}/{}", row.cpu_used, row.cpu_available);
            if row.count > 1 {
                let _ = write!(info, "  ×{}", row.count);
            }
            if !row.alive {
                info.push_str("  DEAD");
            }
            if !row.nearest_for.is_empty() {
                let _ = write!(info, "  ◂ nearest for {}", row.nearest_for.join(", "));
            }
            self.text(cells_x + cells_w + GAP * 2.0, &info, "");
            self.y += ROW;
        }
        if let Some(more) = &picture.more {
            self.text(MARGIN * 2.0, &more_line(more), r##" fill="#555""##);
            self.y += ROW;
        }
    }

    /// The pending groups (dashed, in red) with their nearest node, how many more are not
    /// shown, and the groups never created.
    fn pending(&mut self, picture: &Picture, cell_w: f64) {
        for p in &picture.pending {
            let label = format!("PENDING {}", p.name);
            self.text(MARGIN * 2.0, &label, r##" fill="#d00" font-weight="bold""##);
            let x = MARGIN * 2.0 + text_width(&label) + GAP * 3.0;
            let end = self.segments(x, std::slice::from_ref(&p.segment), cell_w, true);
            let mut info = format!("CPU {}  {}", p.cpu, p.state);
            if let Some(nearest) = &p.nearest {
                let _ = write!(info, "; nearest {nearest}");
            }
            self.text(end, &info, r##" fill="#d00""##);
            self.y += ROW;
        }
        if picture.pending_hidden > 0 {
            self.text(
                MARGIN * 2.0,
                &format!("… and {} more pending groups", picture.pending_hidden),
                r##" fill="#d00""##,
            );
            self.y += ROW;
        }
        for (groups, waits) in &picture.not_created {
            self.text(
                MARGIN * 2.0,
                &format!("not created: {groups} (verl waits on {waits} forever)"),
                r##" fill="#555""##,
            );
            self.y += ROW;
        }
    }

    /// The legend, on one line: each pool's colour and letter, then the glyphs shown.
    fn legend(&mut self, picture: &Picture) {
        let mut x = MARGIN * 2.0;
        for entry in &picture.legend {
            let _ = writeln!(
                self.body,
                r#"<rect x="{x:.1}" y="{:.1}" width="14" height="14" rx="2" fill="{}"/>"#,
                self.y + 2.0,
                PALETTE[entry.pool % PALETTE.len()]
            );
            let text = format!("{} = {} ({})", entry.letter, entry.name, entry.slots);
            self.text(x + 18.0, &text, "");
            x += 18.0 + text_width(&text) + GAP * 4.0;
        }
        let glyphs = [
            (picture.glyphs.free, FREE, "free", "#fff"),
            (picture.glyphs.busy, BUSY, "held by others", "#ccc"),
            (picture.glyphs.dead, DEAD, "dead node", "#f3d6d6"),
        ];
        for (shown, glyph, what, fill) in glyphs {
            if shown {
                let _ = writeln!(
                    self.body,
                    r##"<rect x="{x:.1}" y="{:.1}" width="14" height="14" rx="2" fill="{fill}" stroke="#999"/>"##,
                    self.y + 2.0
                );
                let text = format!("{glyph} {what}");
                self.text(x + 18.0, &text, "");
                x += 18.0 + text_width(&text) + GAP * 4.0;
            }
        }
    }

    /// The SVG document around what was drawn, sized to it.
    fn document(self) -> String {
        let width = (self.width + MARGIN).ceil();
        let height = (self.y + MARGIN).ceil();
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"{FONT}\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n{}</svg>\n",
            self.body
        )
    }
}

/// The width of the widest row's cells (at least the "(no accelerators)" note's), where
/// the rows' CPU column starts.
fn cells_width(picture: &Picture, cell_w: f64) -> f64 {
    picture
        .rows
        .iter()
        .map(|r| {
            r.segments
                .iter()
                .map(|s| {
                    text_width(s.accelerator)
                        + GAP * 5.0
                        + s.cells.len() as f64 * (cell_w + GAP)
                        + if s.hidden > 0 {
                            text_width(&format!("+{}", s.hidden))
                        } else {
                            0.0
                        }
                })
                .sum::<f64>()
                .max(text_width("(no accelerators)"))
        })
        .fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            escape(r#"<a href="x">&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;"
        );
        assert_eq!(escape("a\u{1}b"), "a\u{FFFD}b");
    }
}
