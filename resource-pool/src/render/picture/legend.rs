//! The picture's last passes: the legend (the pools drawn and their slots) and the glyphs
//! used (the legend lists only those).

use super::{Cell, Glyphs, LegendEntry, MAX_ROWS, PendingGroup, Row, pool_letter};
use crate::{NodeSlot, ResourcePool};

/// The legend: every pool with a cell drawn, and its slots placed or pending.
pub(super) fn legend(
    pools: &[ResourcePool],
    slots: &[NodeSlot],
    assignment: &[Option<usize>],
    rows: &[Row],
    pending: &[PendingGroup],
) -> Vec<LegendEntry> {
    let mut shown: Vec<Vec<usize>> = vec![Vec::new(); pools.len()];
    let mut shown_any = vec![false; pools.len()];
    for (slot_index, node) in assignment.iter().enumerate() {
        if node.is_some()
            && let Some(slot) = slots.get(slot_index)
            && let Some(list) = shown.get_mut(slot.pool)
        {
            list.push(slot.slot);
        }
    }
    for p in pending {
        for cell in &p.segment.cells {
            if let Cell::Held { pool, slot } = cell
                && let Some(list) = shown.get_mut(*pool)
                && let Some(slot) = slot
                && list.last() != Some(slot)
            {
                list.push(*slot);
            }
        }
    }
    for row in rows {
        for segment in &row.segments {
            for cell in &segment.cells {
                if let Cell::Held { pool, .. } = cell
                    && let Some(flag) = shown_any.get_mut(*pool)
                {
                    *flag = true;
                }
            }
        }
    }
    for p in pending {
        for cell in &p.segment.cells {
            if let Cell::Held { pool, .. } = cell
                && let Some(flag) = shown_any.get_mut(*pool)
            {
                *flag = true;
            }
        }
    }
    pools
        .iter()
        .enumerate()
        .filter(|(i, _)| shown_any[*i])
        .map(|(i, pool)| {
            let mut list = std::mem::take(&mut shown[i]);
            list.sort_unstable();
            list.dedup();
            LegendEntry {
                letter: pool_letter(i),
                pool: i,
                name: pool.name.clone(),
                slots: slot_list(&list),
            }
        })
        .take(MAX_ROWS)
        .collect()
}

/// Which of the free, busy and dead glyphs the rows use.
pub(super) fn glyphs(rows: &[Row]) -> Glyphs {
    let mut glyphs = Glyphs::default();
    for row in rows {
        for segment in &row.segments {
            for cell in &segment.cells {
                match cell {
                    Cell::Free => glyphs.free = true,
                    Cell::Busy => glyphs.busy = true,
                    Cell::Dead => glyphs.dead = true,
                    Cell::Held { .. } => {}
                }
            }
        }
    }
    glyphs
}

/// `0`, `0–3`, `0, 2, 5–7` (sorted, distinct; long lists cut). A run is written with an
/// en dash, both ends included: `0..3` would read as exclusive to a Rust reader.
pub(super) fn slot_range(list: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let start = list[i];
        let mut end = start;
        while i + 1 < list.len() && list[i + 1] == end + 1 {
            i += 1;
            end = list[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        i += 1;
        if parts.len() == 8 && i < list.len() {
            parts.push("…".to_owned());
            break;
        }
    }
    parts.join(", ")
}

fn slot_list(list: &[usize]) -> String {
    match list {
        [] => "no slot placed".to_owned(),
        [one] => format!("slot {one}"),
        _ => format!("slots {}", slot_range(list)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_ranges_join_runs() {
        // Both ends included: slots 0, 1, 2 and 3.
        assert_eq!(slot_range(&[0, 1, 2, 3]), "0–3");
        assert_eq!(slot_range(&[0, 2, 5, 6, 7]), "0, 2, 5–7");
        assert_eq!(slot_range(&[3, 4]), "3–4");
        assert_eq!(slot_list(&[4]), "slot 4");
        let long: Vec<usize> = (0..40).map(|i| i * 2).collect();
        assert!(slot_range(&long).ends_with("…"));
    }
}
