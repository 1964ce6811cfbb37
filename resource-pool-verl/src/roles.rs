//! verl's roles, once: the table that the lint's role set ([`role_set`]), the library's
//! `verl::Role` enum (tied to it by a test in the `resource-pool` crate) and the verl
//! reader's mappings (tied by the test below) follow.

use resource_pool_core::lint::RoleSet;

/// One of verl's roles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerlRole {
    /// The variant of verl's `Role` enum (`verl/trainer/ppo/utils.py`): `RefPolicy`.
    pub variant: &'static str,
    /// Its string, what verl's mapping and our reports call it: `ref`.
    pub name: &'static str,
    /// Other names a config may use for it: the variant in snake_case when that is not
    /// the string (`ref_policy`).
    pub aliases: &'static [&'static str],
}

/// verl's roles in its enum's order (the index is the enum's value).
pub const VERL_ROLES: [VerlRole; 9] = [
    VerlRole {
        variant: "Actor",
        name: "actor",
        aliases: &[],
    },
    VerlRole {
        variant: "Rollout",
        name: "rollout",
        aliases: &[],
    },
    VerlRole {
        variant: "ActorRollout",
        name: "actor_rollout",
        aliases: &[],
    },
    VerlRole {
        variant: "Critic",
        name: "critic",
        aliases: &[],
    },
    VerlRole {
        variant: "RefPolicy",
        name: "ref",
        aliases: &["ref_policy"],
    },
    VerlRole {
        variant: "RewardModel",
        name: "rm",
        aliases: &["reward_model"],
    },
    VerlRole {
        variant: "ActorRolloutRef",
        name: "actor_rollout_ref",
        aliases: &[],
    },
    VerlRole {
        variant: "Env",
        name: "env",
        aliases: &[],
    },
    VerlRole {
        variant: "TeacherModel",
        name: "teacher",
        aliases: &["teacher_model"],
    },
];

/// verl's roles as the lint's role set: by their strings (`ref`, `rm`) and by their enum
/// names in snake_case (`ref_policy`, `reward_model`).
pub fn role_set() -> RoleSet {
    RoleSet::known(VERL_ROLES.iter().map(|role| (role.name, role.aliases)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load_verl;

    /// `ActorRolloutRef` → `actor_rollout_ref`.
    fn snake_case(variant: &str) -> String {
        let mut out = String::new();
        for (i, c) in variant.chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        }
        out
    }

    #[test]
    fn aliases_are_the_variants_in_snake_case() {
        for role in VERL_ROLES {
            let snake = snake_case(role.variant);
            let expected: &[&str] = if snake == role.name { &[] } else { &[&snake] };
            assert_eq!(role.aliases, expected, "{}", role.variant);
        }
    }

    #[test]
    fn the_verl_reader_maps_roles_of_the_table() {
        let launches: [&[&str]; 4] = [
            &[],
            &["reward_model.enable=True"],
            &["actor_rollout_ref.actor.use_kl_loss=True"],
            &[
                "actor_rollout_ref.actor.use_kl_loss=True",
                "trainer.use_legacy_worker_impl=disable",
            ],
        ];
        let mut seen = Vec::new();
        for overrides in launches {
            let overrides: Vec<String> = overrides.iter().map(|o| (*o).to_owned()).collect();
            let loaded = load_verl(None, &overrides, 1_000_000);
            let layout = loaded.layout.unwrap_or_else(|| panic!("{overrides:?}"));
            for (role, _) in layout.mapping {
                assert!(VERL_ROLES.iter().any(|r| r.name == role), "{role}");
                seen.push(role);
            }
        }
        // Every role the reader can map was met.
        for role in ["actor_rollout", "actor_rollout_ref", "critic", "rm", "ref"] {
            assert!(seen.contains(&role), "{role} never mapped");
        }
    }
}
