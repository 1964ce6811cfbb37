//! Compile-fail and compile-pass cases of the derives. The `.stderr` snapshots hold
//! rustc's own messages too, which drift between releases, so they are pinned to one
//! compiler; `TRYBUILD=overwrite cargo test --test derive_ui` rewrites them.

#[rustversion::attr(not(stable(1.95)), ignore)]
#[test]
fn derive_ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/fail/*.rs");
    cases.pass("tests/ui/pass/*.rs");
}
