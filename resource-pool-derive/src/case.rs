//! `rename_all` rules, spelled and applied to variant names as serde does.

/// A case convention for role names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    /// Every rule with its spelling, in serde's order.
    pub(crate) const ALL: [(&'static str, RenameRule); 8] = [
        ("lowercase", RenameRule::Lower),
        ("UPPERCASE", RenameRule::Upper),
        ("PascalCase", RenameRule::Pascal),
        ("camelCase", RenameRule::Camel),
        ("snake_case", RenameRule::Snake),
        ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
        ("kebab-case", RenameRule::Kebab),
        ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
    ];

    pub(crate) fn from_str(name: &str) -> Option<RenameRule> {
        RenameRule::ALL
            .iter()
            .find(|(spelling, _)| *spelling == name)
            .map(|&(_, rule)| rule)
    }

    /// The name of a variant written in `PascalCase`, under this rule.
    pub(crate) fn apply_to_variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => {
                let mut chars = variant.chars();
                match chars.next() {
                    Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
                    None => String::new(),
                }
            }
            RenameRule::Snake => {
                let mut snake = String::with_capacity(variant.len() + 4);
                for (i, ch) in variant.char_indices() {
                    if i > 0 && ch.is_uppercase() {
                        snake.push('_');
                    }
                    snake.push(ch.to_ascii_lowercase());
                }
                snake
            }
            RenameRule::ScreamingSnake => RenameRule::Snake
                .apply_to_variant(variant)
                .to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake
                .apply_to_variant(variant)
                .replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .apply_to_variant(variant)
                .replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule;

    #[test]
    fn rules_match_serde() {
        let cases = [
            ("lowercase", "actorrollout"),
            ("UPPERCASE", "ACTORROLLOUT"),
            ("PascalCase", "ActorRollout"),
            ("camelCase", "actorRollout"),
            ("snake_case", "actor_rollout"),
            ("SCREAMING_SNAKE_CASE", "ACTOR_ROLLOUT"),
            ("kebab-case", "actor-rollout"),
            ("SCREAMING-KEBAB-CASE", "ACTOR-ROLLOUT"),
        ];
        for (rule, expected) in cases {
            let rule = RenameRule::from_str(rule).unwrap();
            assert_eq!(rule.apply_to_variant("ActorRollout"), expected);
        }
        assert_eq!(RenameRule::from_str("snake"), None);
    }
}
