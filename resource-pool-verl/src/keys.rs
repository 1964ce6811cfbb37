//! The verl settings that decide the resource pools, and the rollout's settings that must
//! fit the pool `actor_rollout` runs on: their dotted keys, types and verl's
//! defaults. These are the only values read; every other key of verl's config is only
//! judged for existence, against [`super::key_set`]. The key constants are public and
//! stable: other modules (and suggested layouts written as overrides) name keys by them.

/// What a key holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A whole number.
    Int,
    /// `true`/`false`.
    Bool,
    /// A string.
    Str,
}

impl Kind {
    /// The type's name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int => "an integer",
            Kind::Bool => "a boolean",
            Kind::Str => "a string",
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An example value of a kind, for help texts (`1`, `True`, `cuda`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(transparent)]
pub struct Example(pub Kind);

impl std::fmt::Display for Example {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0 {
            Kind::Int => "1",
            Kind::Bool => "True",
            Kind::Str => "cuda",
        })
    }
}

/// A value of a known key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A whole number.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(String),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            // Hydra and verl's docs spell booleans in Python's way.
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Str(s) => f.write_str(s),
        }
    }
}

/// A key verl reads to build its pools.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// The dotted path.
    pub path: &'static str,
    /// Its type.
    pub kind: Kind,
    /// verl's default (`ppo_trainer.yaml`); for a [`Key::nullable`] key, the value verl
    /// uses when it is null or absent.
    pub default: DefaultValue,
    /// Whether verl takes `null` as "not set". verl 0.7.1 and later set the legacy
    /// `reward_model.{enable,enable_resource_pool,n_gpus_per_node,nnodes}` to null in their
    /// own config (`legacy_reward_impl.yaml`); `migrate_legacy_reward_impl`
    /// (`verl/experimental/reward_loop/reward_loop.py`, 0.7.1-0.9.1, called by
    /// `main_ppo` in 0.7.1 and 0.8.0) copies one over `reward.reward_model.*` only when it
    /// is not None, so a null leaves the newer key's value in force. Every other key must
    /// hold a value of its kind (verl would multiply or test a None).
    pub nullable: bool,
}

/// A default value, as a constant.
#[derive(Clone, Copy, Debug)]
pub enum DefaultValue {
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(&'static str),
}

impl DefaultValue {
    /// As a value.
    pub fn value(self) -> Value {
        match self {
            DefaultValue::Int(n) => Value::Int(n),
            DefaultValue::Bool(b) => Value::Bool(b),
            DefaultValue::Str(s) => Value::Str(s.to_owned()),
        }
    }
}

/// Index of a key in [`KEYS`].
pub type KeyId = usize;

macro_rules! keys {
    ($($id:ident = $path:literal : $kind:ident = $default:expr $(, $null:ident)?;)*) => {
        /// Every key read, with verl's default.
        pub const KEYS: &[Key] = &[$(Key {
            path: $path,
            kind: Kind::$kind,
            default: $default,
            nullable: keys!(@null $($null)?),
        },)*];
        keys!(@ids 0usize, $($id)*);
    };
    (@null nullable) => { true };
    (@null) => { false };
    (@ids $n:expr, $id:ident $($rest:ident)*) => {
        #[doc = concat!("The index of `", stringify!($id), "` in [`KEYS`].")]
        pub const $id: KeyId = $n;
        keys!(@ids $n + 1usize, $($rest)*);
    };
    (@ids $n:expr,) => {};
}

keys! {
    NNODES = "trainer.nnodes": Int = DefaultValue::Int(1);
    N_GPUS_PER_NODE = "trainer.n_gpus_per_node": Int = DefaultValue::Int(8);
    DEVICE = "trainer.device": Str = DefaultValue::Str("cuda");
    LEGACY_WORKER_IMPL = "trainer.use_legacy_worker_impl": Str = DefaultValue::Str("auto");
    RM_ENABLE = "reward_model.enable": Bool = DefaultValue::Bool(false), nullable;
    RM_POOL = "reward_model.enable_resource_pool": Bool = DefaultValue::Bool(false), nullable;
    RM_GPUS = "reward_model.n_gpus_per_node": Int = DefaultValue::Int(8), nullable;
    RM_NNODES = "reward_model.nnodes": Int = DefaultValue::Int(0), nullable;
    NEW_RM_ENABLE = "reward.reward_model.enable": Bool = DefaultValue::Bool(false);
    NEW_RM_POOL = "reward.reward_model.enable_resource_pool": Bool = DefaultValue::Bool(false);
    NEW_RM_GPUS = "reward.reward_model.n_gpus_per_node": Int = DefaultValue::Int(8);
    NEW_RM_NNODES = "reward.reward_model.nnodes": Int = DefaultValue::Int(0);
    KL_IN_REWARD = "algorithm.use_kl_in_reward": Bool = DefaultValue::Bool(false);
    KL_LOSS = "actor_rollout_ref.actor.use_kl_loss": Bool = DefaultValue::Bool(false);
    DISTILL_ENABLE = "distillation.enabled": Bool = DefaultValue::Bool(false);
    DISTILL_GPUS = "distillation.n_gpus_per_node": Int = DefaultValue::Int(8);
    DISTILL_NNODES = "distillation.nnodes": Int = DefaultValue::Int(0);
    ROLLOUT_TP = "actor_rollout_ref.rollout.tensor_model_parallel_size": Int = DefaultValue::Int(2);
    ROLLOUT_DP = "actor_rollout_ref.rollout.data_parallel_size": Int = DefaultValue::Int(1);
    ROLLOUT_PP = "actor_rollout_ref.rollout.pipeline_model_parallel_size": Int = DefaultValue::Int(1);
    ROLLOUT_MODE = "actor_rollout_ref.rollout.mode": Str = DefaultValue::Str("async");
    // verl's default is `${oc.select:trainer.n_gpus_per_node,8}`: unless it is set, the
    // rollout's replicas take `trainer.n_gpus_per_node` (see `rollout::replica_per_node`);
    // 8 is that interpolation's fallback.
    ROLLOUT_GPUS = "actor_rollout_ref.rollout.n_gpus_per_node": Int = DefaultValue::Int(8);
}

/// The rollout's keys: read to check the rollout against the pool actor_rollout runs on
/// ([`super::rollout`]: its parallel sizes, and its replicas' mode and node size), not to
/// size a pool.
pub const ROLLOUT_KEYS: [KeyId; 5] = [
    ROLLOUT_TP,
    ROLLOUT_DP,
    ROLLOUT_PP,
    ROLLOUT_MODE,
    ROLLOUT_GPUS,
];

/// Whether a key sizes or creates a pool (every key of [`KEYS`] but [`ROLLOUT_KEYS`]): a
/// typo of one builds other pools than meant.
pub fn sizes_pools(key: KeyId) -> bool {
    !ROLLOUT_KEYS.contains(&key)
}

/// The key of that dotted path.
pub fn key_id(path: &str) -> Option<KeyId> {
    KEYS.iter().position(|k| k.path == path)
}

/// Whether a scalar is null: in the YAML as OmegaConf reads it (unquoted `null`, `Null`,
/// `NULL`, `~`, or an empty value); on Hydra's command line as its grammar's `NULL`
/// token (`null` in any case; `key=` is an empty string there, `key=~` no value at all).
pub fn is_null(text: &str, quoted: bool, in_yaml: bool) -> bool {
    !quoted
        && if in_yaml {
            resource_pool_inventory::yaml_text::is_null_word(text) || text.is_empty()
        } else {
            text.eq_ignore_ascii_case("null")
        }
}

/// Reads a scalar as a value of `kind`. In the YAML (`in_yaml`), as OmegaConf's YAML
/// loader reads it (PyYAML's SafeLoader, YAML 1.1): booleans are `true`, `yes`, `on`,
/// `false`, `no`, `off` in lower, Capitalised or UPPER case only (`tRuE`, `y` are strings);
/// integers are YAML 1.1's (`010` is 8, `0x10` 16, `0b11` 3, `1:30` 90, `1__0` 10; `08` is
/// a string). On
/// Hydra's command line, as Hydra's override grammar does (`OverrideLexer.g4`): `BOOL` is
/// `true`/`false` in any case only (`yes`, `on`, `off` are strings), `INT` is
/// `[+-]?(0|[1-9](_?[0-9])*)` (`01`, `1__0`, `0x10` are strings). Quoted scalars are
/// strings.
///
/// An integer past i64 reads as i64's bound, as large (or as negative) as a count can be,
/// so the count's own rules judge it (too many node-slots, an empty pool), not a type
/// error (Python's integers have no bound).
pub fn interpret(text: &str, quoted: bool, kind: Kind, in_yaml: bool) -> Option<Value> {
    match kind {
        Kind::Str => Some(Value::Str(text.to_owned())),
        _ if quoted => None,
        Kind::Bool if in_yaml => match text {
            "true" | "True" | "TRUE" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" => {
                Some(Value::Bool(true))
            }
            "false" | "False" | "FALSE" | "no" | "No" | "NO" | "off" | "Off" | "OFF" => {
                Some(Value::Bool(false))
            }
            _ => None,
        },
        Kind::Bool => match text.to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        Kind::Int if in_yaml => yaml_int(text).map(Value::Int),
        Kind::Int => {
            if !is_hydra_int(text) {
                return None;
            }
            let (negative, digits) = split_sign(text);
            Some(Value::Int(saturate(negative, digits_value(digits, 10)?)))
        }
    }
}

/// A YAML 1.1 integer as PyYAML's SafeLoader resolves and constructs it (`int` in
/// `resolver.py`, `construct_yaml_int` in `constructor.py`): an optional sign, then binary
/// `0b1_0`, hexadecimal `0x1F` (lowercase `0b`/`0x` only), octal `010` (any leading `0`:
/// 8; `08` is a string), decimal `1_000` (`_` anywhere after the first digit: `1__0`, `1_`)
/// or sexagesimal `1:30` (90: base 60 after the first part, each part `[0-5]?[0-9]`).
/// `0x_` and `0b_` read as no integer.
fn yaml_int(text: &str) -> Option<i64> {
    let (negative, body) = split_sign(text);
    let all = |digits: &str, ok: fn(u8) -> bool| {
        !digits.is_empty() && digits.bytes().all(|b| b == b'_' || ok(b))
    };
    let magnitude = if let Some(digits) = body.strip_prefix("0b") {
        all(digits, |b| matches!(b, b'0' | b'1')).then_some(())?;
        digits_value(digits, 2)?
    } else if let Some(digits) = body.strip_prefix("0x") {
        all(digits, |b| b.is_ascii_hexdigit()).then_some(())?;
        digits_value(digits, 16)?
    } else if body == "0" {
        0
    } else if let Some(digits) = body.strip_prefix('0') {
        all(digits, |b| matches!(b, b'0'..=b'7')).then_some(())?;
        // `0_` is `0`: nothing but separators after the `0`.
        digits_value(digits, 8).unwrap_or(0)
    } else {
        let mut parts = body.split(':');
        let first = parts.next()?;
        (first.as_bytes().first()?.is_ascii_digit() && all(first, |b| b.is_ascii_digit()))
            .then_some(())?;
        let mut n = digits_value(first, 10)?;
        for part in parts {
            let p = part.as_bytes();
            let sixty = match p {
                [d] => d.is_ascii_digit(),
                [a, b] => matches!(a, b'0'..=b'5') && b.is_ascii_digit(),
                _ => false,
            };
            sixty.then_some(())?;
            n = n.saturating_mul(60).saturating_add(digits_value(part, 10)?);
        }
        n
    };
    Some(saturate(negative, magnitude))
}

/// Whether `text` is Hydra's `INT`: `[+-]?(0|[1-9](_?[0-9])*)`.
fn is_hydra_int(text: &str) -> bool {
    let digits = split_sign(text).1.as_bytes();
    match digits {
        [b'0'] => true,
        [b'1'..=b'9', rest @ ..] => {
            !rest.ends_with(b"_")
                && !rest.windows(2).any(|w| w == b"__")
                && rest.iter().all(|b| b.is_ascii_digit() || *b == b'_')
        }
        _ => false,
    }
}

/// The value of checked digits (and `_` separators) in `radix`, saturating past `u128`;
/// `None` when there is no digit.
fn digits_value(digits: &str, radix: u32) -> Option<u128> {
    let mut n: Option<u128> = None;
    for c in digits.chars().filter(|&c| c != '_') {
        let d = u128::from(c.to_digit(radix)?);
        n = Some(
            n.unwrap_or(0)
                .saturating_mul(u128::from(radix))
                .saturating_add(d),
        );
    }
    n
}

/// A magnitude with its sign, as i64 or its bound.
fn saturate(negative: bool, magnitude: u128) -> i64 {
    if negative {
        i64::try_from(magnitude).map_or(i64::MIN, |n| -n)
    } else {
        i64::try_from(magnitude).unwrap_or(i64::MAX)
    }
}

/// A number's sign and the rest: `-2` is `(true, "2")`, `+2` and `2` are `(false, "2")`.
pub(super) fn split_sign(text: &str) -> (bool, &str) {
    match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_match_the_table() {
        assert_eq!(KEYS[NNODES].path, "trainer.nnodes");
        assert_eq!(KEYS[KL_LOSS].path, "actor_rollout_ref.actor.use_kl_loss");
        assert_eq!(key_id("reward_model.nnodes"), Some(RM_NNODES));
        assert_eq!(key_id("trainer.nnode"), None);
    }

    #[test]
    fn scalars_read_as_omegaconf_does() {
        assert_eq!(
            interpret("True", false, Kind::Bool, true),
            Some(Value::Bool(true))
        );
        assert_eq!(
            interpret("off", false, Kind::Bool, true),
            Some(Value::Bool(false))
        );
        assert_eq!(interpret("true", true, Kind::Bool, true), None);
        assert_eq!(
            interpret("1_000", false, Kind::Int, true),
            Some(Value::Int(1000))
        );
        assert_eq!(
            interpret("-2", false, Kind::Int, true),
            Some(Value::Int(-2))
        );
        assert_eq!(interpret("2.0", false, Kind::Int, true), None);
        assert_eq!(
            interpret("99999999999999999999", false, Kind::Int, true),
            Some(Value::Int(i64::MAX))
        );
        assert_eq!(
            interpret("-1_000_000_000_000_000_000_000", false, Kind::Int, true),
            Some(Value::Int(i64::MIN))
        );
        assert_eq!(interpret("", false, Kind::Int, true), None);
        // YAML 1.1's integers and booleans, as PyYAML's SafeLoader reads them.
        for (text, n) in [
            ("0x10", 16),
            ("-0b11", -3),
            ("1:30", 90),
            ("1__0", 10),
            ("0_", 0),
        ] {
            assert_eq!(
                interpret(text, false, Kind::Int, true),
                Some(Value::Int(n)),
                "{text}"
            );
        }
        for text in ["08", "0X10", "0x_", "+-1", "_1", "1:60"] {
            assert_eq!(interpret(text, false, Kind::Int, true), None, "{text}");
        }
        assert_eq!(
            interpret("ON", false, Kind::Bool, true),
            Some(Value::Bool(true))
        );
        for text in ["tRuE", "yEs", "y", "n"] {
            assert_eq!(interpret(text, false, Kind::Bool, true), None, "{text}");
        }
        assert_eq!(
            interpret("8", true, Kind::Str, true),
            Some(Value::Str("8".into()))
        );
    }

    #[test]
    fn command_line_scalars_read_as_hydra_grammar_does() {
        // hydra-core 1.3.2's grammar: `yes`, `on`, `off`, `no` are
        // strings on the command line, `true`/`false` in any case booleans.
        for text in ["yes", "on", "off", "no", "Yes", "y"] {
            assert_eq!(interpret(text, false, Kind::Bool, false), None, "{text}");
        }
        assert_eq!(
            interpret("tRuE", false, Kind::Bool, false),
            Some(Value::Bool(true))
        );
        assert_eq!(
            interpret("FALSE", false, Kind::Bool, false),
            Some(Value::Bool(false))
        );
        // Hydra's INT: no leading zero, single `_` between digits.
        for text in ["01", "00", "0_1", "1__0", "1_", "+-1"] {
            assert_eq!(interpret(text, false, Kind::Int, false), None, "{text}");
        }
        for (text, n) in [("0", 0), ("-0", 0), ("+1", 1), ("1_000", 1000), ("-2", -2)] {
            assert_eq!(
                interpret(text, false, Kind::Int, false),
                Some(Value::Int(n)),
                "{text}"
            );
        }
        // The YAML keeps YAML 1.1's (OmegaConf's loader): `010` is octal there.
        assert_eq!(
            interpret("010", false, Kind::Int, true),
            Some(Value::Int(8))
        );
        assert_eq!(interpret("010", false, Kind::Int, false), None);
    }
}
