//! Every key of verl's config, per release: the fact table `data/keys.txt` that
//! `scripts/verl-keys` generates from verl's own config files (see that folder's README).
//!
//! The table is embedded as text (`include_str!`) and parsed once, at first use, into a
//! tree of keys whose presence in each *composition* (a release × trainer config × one
//! defaults-list choice) is a bitset. Text rather than generated Rust tables because the
//! file is the fact table itself: reviewable in a diff when a release adds keys, written by
//! the script without a second code generator, and cheap to read (1,969 keys over 216
//! compositions, 79 KB; parsing it takes well under a millisecond, measured by the
//! `verl_launch` bench). Once parsed, a key is judged by a hash lookup per dotted prefix.

use std::collections::HashMap;
use std::sync::OnceLock;

const DATA: &str = include_str!("../data/keys.txt");

/// A composition: a release's trainer config with its default choices, or with one
/// defaults-list choice changed.
#[derive(Clone, Debug)]
pub struct Composition {
    /// Index into [`KeySet::versions`].
    pub version: usize,
    /// The config name (`ppo_trainer`).
    pub config: String,
    /// The choice changed from the default (`model_engine`, `megatron`), if any.
    pub variant: Option<(String, String)>,
}

/// An entry point's `@hydra.main` in one release.
#[derive(Clone, Debug)]
pub struct EntryConfig {
    /// Index into [`KeySet::versions`].
    pub version: usize,
    /// The module (`verl.trainer.main_ppo`).
    pub module: String,
    /// Its `config_path`, relative to its file.
    pub config_path: String,
    /// Its `config_name`.
    pub config_name: String,
}

struct Node {
    present: u32,
    open: u32,
}

/// verl's keys across the releases of the table.
pub struct KeySet {
    /// The releases, oldest first (`0.5.0`), with their wheel's file name.
    pub versions: Vec<(String, String)>,
    /// The compositions, in the table's order.
    pub compositions: Vec<Composition>,
    /// The entry points' configs.
    pub entries: Vec<EntryConfig>,
    /// The default choices of each default composition, by its index.
    choices: HashMap<usize, Vec<(String, String)>>,
    /// Values of the pool keys in each default composition: (composition, key, value).
    pub defaults: Vec<(usize, String, String)>,
    patterns: Vec<Vec<u64>>,
    nodes: HashMap<Box<str>, Node>,
    /// Every key, for suggestions: (dotted path, presence pattern).
    paths: Vec<(Box<str>, u32)>,
}

/// verl's key set, parsed on first use.
pub fn key_set() -> &'static KeySet {
    static SET: OnceLock<KeySet> = OnceLock::new();
    SET.get_or_init(|| KeySet::parse(DATA))
}

fn bit(pattern: &[u64], i: usize) -> bool {
    pattern.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

fn hex_bits(hex: &str) -> Vec<u64> {
    let bytes = hex.as_bytes();
    let mut words = vec![0u64; bytes.len().div_ceil(16)];
    for (i, &b) in bytes.iter().rev().enumerate() {
        let v = (b as char).to_digit(16).unwrap_or(0) as u64;
        words[i / 16] |= v << ((i % 16) * 4);
    }
    words
}

impl KeySet {
    /// Parses the table (generated, so a malformed line is skipped, never a panic).
    fn parse(text: &str) -> KeySet {
        let mut set = KeySet {
            versions: Vec::new(),
            compositions: Vec::new(),
            entries: Vec::new(),
            choices: HashMap::new(),
            defaults: Vec::new(),
            patterns: Vec::new(),
            nodes: HashMap::new(),
            paths: Vec::new(),
        };
        let version_index = |set: &KeySet, v: &str| set.versions.iter().position(|(n, _)| n == v);
        let mut lines = text.lines();
        for line in lines.by_ref() {
            if line.starts_with('#') {
                continue;
            }
            if line == "keys" {
                break;
            }
            let w: Vec<&str> = line.split(' ').collect();
            match w.as_slice() {
                ["version", v, wheel, ..] => set.versions.push((v.to_string(), wheel.to_string())),
                ["entry", v, module, path, name] => {
                    if let Some(version) = version_index(&set, v) {
                        set.entries.push(EntryConfig {
                            version,
                            module: module.to_string(),
                            config_path: path.to_string(),
                            config_name: name.to_string(),
                        });
                    }
                }
                ["context", _, v, config, rest @ ..] => {
                    if let Some(version) = version_index(&set, v) {
                        set.compositions.push(Composition {
                            version,
                            config: config.to_string(),
                            variant: rest.first().and_then(|c| {
                                c.split_once('=').map(|(e, o)| (e.to_owned(), o.to_owned()))
                            }),
                        });
                    }
                }
                ["choices", id, pairs @ ..] => {
                    let pairs = pairs
                        .iter()
                        .filter_map(|p| p.split_once('='))
                        .map(|(e, o)| (e.to_owned(), o.to_owned()))
                        .collect();
                    if let Ok(id) = id.parse() {
                        set.choices.insert(id, pairs);
                    }
                }
                ["default", id, key, value @ ..] => {
                    if let Ok(id) = id.parse() {
                        set.defaults.push((id, key.to_string(), value.join(" ")));
                    }
                }
                ["pattern", _, hex] => set.patterns.push(hex_bits(hex)),
                _ => {}
            }
        }
        let mut path: Vec<&str> = Vec::new();
        for line in lines {
            let depth = line.len() - line.trim_start_matches(' ').len();
            let mut w = line.trim_start_matches(' ').split(' ');
            let (Some(name), Some(present)) = (w.next(), w.next()) else {
                continue;
            };
            let open = w.next().unwrap_or("0");
            path.truncate(depth);
            path.push(name);
            let key: Box<str> = path.join(".").into();
            let present = u32::from_str_radix(present, 16).unwrap_or(0);
            let open = u32::from_str_radix(open, 16).unwrap_or(0);
            set.paths.push((key.clone(), present));
            set.nodes.insert(key, Node { present, open });
        }
        set
    }

    /// The release names, oldest first.
    pub fn version_names(&self) -> impl Iterator<Item = &str> {
        self.versions.iter().map(|(v, _)| v.as_str())
    }

    /// Whether any composition of any release has `key` (a dotted path).
    pub fn has_key(&self, key: &str) -> bool {
        self.nodes.contains_key(key)
    }

    /// The trainer configs any release has.
    pub fn config_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .compositions
            .iter()
            .map(|c| c.config.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        names
    }

    /// The default composition of `config` in release `version`.
    pub fn base(&self, version: usize, config: &str) -> Option<usize> {
        self.compositions
            .iter()
            .position(|c| c.version == version && c.config == config && c.variant.is_none())
    }

    /// The composition with one choice changed, if the release has that option.
    pub fn variant(
        &self,
        version: usize,
        config: &str,
        entry: &str,
        option: &str,
    ) -> Option<usize> {
        self.compositions.iter().position(|c| {
            c.version == version
                && c.config == config
                && c.variant
                    .as_ref()
                    .is_some_and(|(e, o)| e == entry && o == option)
        })
    }

    /// A default composition's choices (`model_engine` → `dp`, ...).
    pub fn choices(&self, base: usize) -> &[(String, String)] {
        self.choices.get(&base).map_or(&[], Vec::as_slice)
    }

    /// Whether `entry` is a defaults-list choice of `config` in some release.
    pub fn is_choice(&self, config: &str, entry: &str) -> bool {
        self.choices.iter().any(|(&base, pairs)| {
            self.compositions[base].config == config && pairs.iter().any(|(e, _)| e == entry)
        })
    }

    /// The options a choice has in a release (its default first).
    pub fn options(&self, version: usize, config: &str, entry: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        if let Some(base) = self.base(version, config) {
            out.extend(
                self.choices(base)
                    .iter()
                    .filter(|(e, _)| e == entry)
                    .map(|(_, o)| o.as_str()),
            );
        }
        for c in &self.compositions {
            if c.version == version
                && c.config == config
                && let Some((e, o)) = &c.variant
                && e == entry
            {
                out.push(o);
            }
        }
        out
    }

    fn has(&self, key: &str, composition: usize) -> bool {
        self.nodes
            .get(key)
            .is_some_and(|n| self.presence(n.present, composition))
    }

    fn presence(&self, pattern: u32, composition: usize) -> bool {
        self.patterns
            .get(pattern as usize)
            .is_some_and(|p| bit(p, composition))
    }
}

/// One release's view: its default composition and the choices changed from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseView {
    /// Index into [`KeySet::versions`].
    pub version: usize,
    /// The default composition.
    pub base: usize,
    /// The compositions of the changed choices.
    pub variants: Vec<usize>,
}

/// How a key stands against a selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyStatus {
    /// verl has it.
    Known,
    /// Under a map that takes any key (`{}` or null by default, or a dict-typed field).
    InOpenMap,
    /// Not in the selection.
    Unknown,
}

impl ReleaseView {
    /// Whether a key (or, with `open`, an open map at it) is in this view: in the default
    /// composition and kept by every changed choice, or brought by one of them.
    fn holds(&self, set: &KeySet, key: &str, open: bool) -> bool {
        set.nodes
            .get(key)
            .is_some_and(|n| self.holds_pattern(set, if open { n.open } else { n.present }))
    }

    fn holds_pattern(&self, set: &KeySet, pattern: u32) -> bool {
        let in_base = set.presence(pattern, self.base);
        (in_base && self.variants.iter().all(|&v| set.presence(pattern, v)))
            || self
                .variants
                .iter()
                .any(|&v| set.presence(pattern, v) && !in_base)
    }
}

/// A key judged against several releases' views: known when any of them has it.
pub fn status(set: &KeySet, views: &[ReleaseView], key: &str) -> KeyStatus {
    if views.iter().any(|v| v.holds(set, key, false)) {
        return KeyStatus::Known;
    }
    let mut prefix = key;
    while let Some((parent, _)) = prefix.rsplit_once('.') {
        if views.iter().any(|v| v.holds(set, parent, true)) {
            return KeyStatus::InOpenMap;
        }
        prefix = parent;
    }
    KeyStatus::Unknown
}

/// Whether every view has `key` with a value (not an open map: `{}`, null or a free-form
/// dict): where Hydra refuses `+key=value` ("An item is already at ...").
pub fn set_in_every_view(set: &KeySet, views: &[ReleaseView], key: &str) -> bool {
    !views.is_empty()
        && views
            .iter()
            .all(|v| v.holds(set, key, false) && !v.holds(set, key, true))
}

/// The releases (of the same config) whose default composition has `key`, when the views
/// do not: what `--verl-version` narrowed away.
pub fn other_releases<'s>(
    set: &'s KeySet,
    views: &[ReleaseView],
    config: &str,
    key: &str,
) -> Vec<&'s str> {
    set.versions
        .iter()
        .enumerate()
        .filter(|(i, _)| views.iter().all(|v| v.version != *i))
        .filter(|(i, _)| set.base(*i, config).is_some_and(|b| set.has(key, b)))
        .map(|(_, (name, _))| name.as_str())
        .collect()
}

/// A defaults-list choice (of the views' releases) under which `key` exists:
/// `model_engine=megatron` for a Megatron key on the FSDP config.
pub fn choice_with<'s>(
    set: &'s KeySet,
    views: &[ReleaseView],
    key: &str,
) -> Option<(&'s str, &'s str)> {
    let node = set.nodes.get(key)?;
    for view in views.iter().rev() {
        for (i, c) in set.compositions.iter().enumerate() {
            if c.version == view.version
                && set.compositions[view.base].config == c.config
                && let Some((e, o)) = &c.variant
                && set.presence(node.present, i)
            {
                return Some((e, o));
            }
        }
    }
    None
}

/// The most edits a suggestion is from a typed key's last part.
pub const MAX_EDITS: usize = 2;

/// Whether a known key's last part `known` is like a typed key's last part `typed`: at most
/// [`MAX_EDITS`] edits apart (Damerau-Levenshtein: a character inserted, deleted or
/// changed, or two neighbours swapped), and fewer edits than a third of `typed`'s length
/// (`nnode` is 1 edit of 5 from `nnodes`; `debug` is 4 from `device`, `remove_clip` none of
/// `trainer`'s).
pub fn alike(typed: &str, known: &str) -> bool {
    let edits = strsim::damerau_levenshtein(typed, known);
    edits <= MAX_EDITS && 3 * edits < typed.chars().count()
}

/// The known key a misspelt one stands for: a key of the views with the same parent whose
/// last part is [`alike`] the typed one's, the fewest edits away (the first of the table
/// among equals). None without such a key: no unrelated suggestion.
pub fn suggest<'s>(set: &'s KeySet, views: &[ReleaseView], key: &str) -> Option<&'s str> {
    let split = |k: &'s str| k.rsplit_once('.').unwrap_or(("", k));
    let (parent, last) = key.rsplit_once('.').unwrap_or(("", key));
    let in_views = |pattern: u32| views.iter().any(|v| v.holds_pattern(set, pattern));
    set.paths
        .iter()
        .filter(|(path, pattern)| split(path).0 == parent && in_views(*pattern))
        .map(|(path, _)| (&**path, split(path).1))
        .filter(|(_, known)| alike(last, known))
        .min_by_key(|(_, known)| strsim::damerau_levenshtein(last, known))
        .map(|(path, _)| path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn views(version: &str, config: &str, choices: &[(&str, &str)]) -> Vec<ReleaseView> {
        let set = key_set();
        let version = set.version_names().position(|v| v == version).unwrap();
        let base = set.base(version, config).unwrap();
        let variants = choices
            .iter()
            .map(|(e, o)| set.variant(version, config, e, o).unwrap())
            .collect();
        vec![ReleaseView {
            version,
            base,
            variants,
        }]
    }

    #[test]
    fn the_table_holds_the_releases_and_their_configs() {
        let set = key_set();
        let versions: Vec<&str> = set.version_names().collect();
        assert_eq!(
            versions,
            [
                "0.5.0", "0.6.0", "0.6.1", "0.7.0", "0.7.1", "0.8.0", "0.9.0", "0.9.1"
            ]
        );
        assert_eq!(set.config_names(), ["ppo_megatron_trainer", "ppo_trainer"]);
        assert!(set.paths.len() > 1500, "{}", set.paths.len());
        assert!(
            set.entries
                .iter()
                .any(|e| e.module == "verl.trainer.main_ppo" && e.config_name == "ppo_trainer")
        );
    }

    #[test]
    fn keys_judged_per_release_and_choice() {
        let set = key_set();
        let fsdp = views("0.9.1", "ppo_trainer", &[]);
        assert_eq!(status(set, &fsdp, "trainer.nnodes"), KeyStatus::Known);
        assert_eq!(
            status(
                set,
                &fsdp,
                "actor_rollout_ref.actor.fsdp_config.param_offload"
            ),
            KeyStatus::Known
        );
        let megatron_key = "actor_rollout_ref.actor.megatron.tensor_model_parallel_size";
        assert_eq!(status(set, &fsdp, megatron_key), KeyStatus::Unknown);
        assert!(choice_with(set, &fsdp, megatron_key).is_some());
        let megatron = views("0.9.1", "ppo_trainer", &[("model_engine", "megatron")]);
        assert_eq!(status(set, &megatron, megatron_key), KeyStatus::Known);
        // The FSDP actor's keys leave with the FSDP actor.
        assert_eq!(
            status(
                set,
                &megatron,
                "actor_rollout_ref.actor.fsdp_config.param_offload"
            ),
            KeyStatus::Unknown
        );
    }

    #[test]
    fn open_maps_take_any_subkey() {
        let set = key_set();
        let megatron = views("0.9.1", "ppo_trainer", &[("model_engine", "megatron")]);
        for key in [
            "actor_rollout_ref.actor.megatron.override_transformer_config.moe_router_dtype",
            "actor_rollout_ref.rollout.engine_kwargs.vllm.anything",
            "actor_rollout_ref.model.override_config.attention_dropout",
        ] {
            assert_eq!(status(set, &megatron, key), KeyStatus::InOpenMap, "{key}");
        }
        let fsdp = views("0.9.1", "ppo_trainer", &[]);
        for key in [
            "actor_rollout_ref.actor.fsdp_config.mixed_precision.param_dtype",
            "actor_rollout_ref.actor.fsdp_config.turbo_config.x",
        ] {
            assert_eq!(status(set, &fsdp, key), KeyStatus::InOpenMap, "{key}");
        }
    }

    #[test]
    fn releases_differ_and_say_so() {
        let set = key_set();
        let new = views("0.9.1", "ppo_trainer", &[]);
        assert_eq!(
            status(set, &new, "trainer.use_legacy_worker_impl"),
            KeyStatus::Unknown
        );
        let others = other_releases(set, &new, "ppo_trainer", "trainer.use_legacy_worker_impl");
        assert!(others.contains(&"0.7.0"), "{others:?}");
    }

    #[test]
    fn suggestions_are_siblings_a_few_edits_away() {
        let set = key_set();
        let v = views("0.9.1", "ppo_trainer", &[]);
        for (typed, meant) in [
            ("trainer.n_gpu_per_node", "trainer.n_gpus_per_node"),
            ("trainer.nnode", "trainer.nnodes"),
            ("trainer.nnodse", "trainer.nnodes"),
            ("data.max_prompt_lenght", "data.max_prompt_length"),
        ] {
            assert_eq!(suggest(set, &v, typed), Some(meant), "{typed}");
        }
        // Found on real lines (issue 44): nothing alike, so no suggestion; nor under
        // another parent, nor for a short part two edits from a key.
        for typed in [
            "trainer.debug",
            "trainer.remove_clip",
            "trainer.remove_previous_ckpt_in_save",
            "trainr.nnodes",
            "trainer.nnodes.x",
            "trainer.dev",
        ] {
            assert_eq!(suggest(set, &v, typed), None, "{typed}");
        }
    }

    #[test]
    fn likeness_is_a_few_edits_and_under_a_third_of_the_part() {
        assert!(alike("nnode", "nnodes"));
        assert!(alike("n_gpus_per_nodes", "n_gpus_per_node"));
        // Two edits need seven characters; three edits are never alike.
        assert!(!alike("nnods", "nnodes_x") && alike("nnodes_", "nnodes"));
        assert!(!alike("devce", "devicexx"));
        assert!(!alike("debug", "device"));
        assert!(!alike("tp", "pp"));
    }

    #[test]
    fn hex_patterns_read_as_bits() {
        let p = hex_bits("1f0");
        assert!(!bit(&p, 0) && bit(&p, 4) && bit(&p, 8) && !bit(&p, 9));
        let long = hex_bits(&format!("1{}", "0".repeat(20)));
        assert!(bit(&long, 80) && !bit(&long, 79));
    }
}
