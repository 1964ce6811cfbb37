//! "Did you mean" for misspelt keys and names: the core's rule (`did_you_mean` in
//! `resource_pool_core::source`), Jaro-Winkler above 0.8, so that one typo gets the same
//! hint from the compiler as from the CLI. Both run the cases of
//! `resource-pool-derive/tests/data/did_you_mean/cases.txt`; a proc-macro crate cannot cheaply depend on the
//! core, so the few lines are repeated and tied by those cases.

/// How alike a typo and a candidate must be (Jaro-Winkler, 0 to 1) to be suggested.
const THRESHOLD: f64 = 0.8;

/// The candidate closest to `wrong`, when it is close enough to be a likely typo.
pub(crate) fn did_you_mean<'a>(
    wrong: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (strsim::jaro_winkler(wrong, candidate), candidate))
        .filter(|(score, _)| *score > THRESHOLD)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// The `: did you mean `x`?` tail of a message, or nothing.
pub(crate) fn hint<'a>(wrong: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match did_you_mean(wrong, candidates) {
        Some(candidate) => format!(": did you mean `{candidate}`?"),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn the_shared_typos_get_the_cores_answers() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/did_you_mean/cases.txt"
        );
        let cases = std::fs::read_to_string(path).expect("the shared cases");
        let mut count = 0;
        for line in cases
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let [typo, candidates, expected] = line.split(" | ").collect::<Vec<_>>()[..] else {
                panic!("malformed case: {line}");
            };
            let expected = (expected != "-").then_some(expected);
            assert_eq!(
                did_you_mean(typo, candidates.split(',')),
                expected,
                "{typo}"
            );
            // The core answers the same.
            assert_eq!(
                resource_pool::source::did_you_mean(typo, candidates.split(',')),
                expected,
                "{typo} (core)"
            );
            count += 1;
        }
        assert!(count >= 20, "{count} cases");
    }
}
