//! "Did you mean" for misspelt keys and names.

/// The candidate closest to `wrong`, when it is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(
    wrong: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let wrong_lower = wrong.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|candidate| {
            let distance = levenshtein(&wrong_lower, &candidate.to_ascii_lowercase());
            (distance, candidate)
        })
        .filter(|&(distance, candidate)| {
            let longest = wrong.chars().count().max(candidate.chars().count());
            distance <= (longest / 3).max(1)
        })
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, candidate)| candidate)
}

/// The `: did you mean `x`?` tail of a message, or nothing.
pub(crate) fn hint<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match did_you_mean(wrong, candidates) {
        Some(candidate) => format!(": did you mean `{candidate}`?"),
        None => String::new(),
    }
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if ca == cb {
                diagonal
            } else {
                1 + diagonal.min(above).min(row[j])
            };
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn close_names_only() {
        let keys = ["roles", "max_colocate_count", "process_on_nodes"];
        assert_eq!(did_you_mean("role", keys), Some("roles"));
        assert_eq!(
            did_you_mean("max_colocate", keys),
            Some("max_colocate_count")
        );
        assert_eq!(
            did_you_mean("proces_on_node", keys),
            Some("process_on_nodes")
        );
        assert_eq!(did_you_mean("zzz", keys), None);
    }
}
