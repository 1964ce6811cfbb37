//! The shared typo cases (`tests/data/did_you_mean/cases.txt`): the core's did-you-mean,
//! which every reader and lint rule uses, gives the answers the derive gives too (the
//! derive's own test runs the same file).

use resource_pool_core::source::did_you_mean;

#[test]
fn the_shared_typos_get_their_answers() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/data/did_you_mean/cases.txt"
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
        count += 1;
    }
    assert!(count >= 20, "{count} cases");
}
