//! Ray resource names and amounts in Ray's fixed point.
//!
//! Ray keeps every resource amount as a fixed-point number with four decimal places
//! (`1/10000` of a unit). We hold amounts the same way, as whole `u64` units, so the
//! placement check compares exactly what Ray compares and never rounds twice.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

pub use super::resource_name::ResourceName;

/// An amount of one resource, in Ray's fixed point: one unit is `1/10000`.
///
/// `Debug` shows the amount as `Display` does (`Amount(20)`, `Amount(0.5)`), not its
/// units: a derived `Debug` of a diagnostic then reads as its message.
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(u64);

/// Why a number cannot be an [`Amount`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AmountError {
    /// The number is below zero.
    #[error("is negative")]
    Negative,
    /// The number is NaN or infinite.
    #[error("is not a finite number")]
    NotFinite,
    /// The number does not fit Ray's fixed point in 64 bits.
    #[error("is too large (at most {} units)", Amount::MAX_WHOLE)]
    TooLarge,
    /// The number has more than four decimal places, below Ray's resolution.
    #[error("is finer than Ray's resolution of 0.0001")]
    TooFine,
}

impl Amount {
    /// Fixed-point units in one whole resource unit.
    pub const SCALE: u64 = 10_000;
    /// The zero amount.
    pub const ZERO: Amount = Amount(0);
    /// The smallest positive amount, `0.0001`: what verl requests per bundle of an
    /// accelerator type.
    pub const EPSILON: Amount = Amount(1);
    /// The largest whole number an amount can hold.
    pub const MAX_WHOLE: u64 = u64::MAX / Self::SCALE;

    /// An amount from raw fixed-point units.
    pub const fn from_units(units: u64) -> Amount {
        Amount(units)
    }

    /// The raw fixed-point units.
    pub const fn units(self) -> u64 {
        self.0
    }

    /// A whole number of resource units (`8` GPUs), or [`AmountError::TooLarge`] past
    /// [`Amount::MAX_WHOLE`]. Every constructor from a number returns a `Result` with
    /// the [`AmountError`] that says why the number is no amount.
    pub const fn from_whole(whole: u64) -> Result<Amount, AmountError> {
        match whole.checked_mul(Self::SCALE) {
            Some(units) => Ok(Amount(units)),
            None => Err(AmountError::TooLarge),
        }
    }

    /// A signed whole number, as TOML integers come.
    pub fn from_i64(value: i64) -> Result<Amount, AmountError> {
        let whole = u64::try_from(value).map_err(|_| AmountError::Negative)?;
        Amount::from_whole(whole)
    }

    /// A floating-point amount, as TOML floats and Ray's JSON come. It must be finite, not
    /// negative, and a multiple of `0.0001` up to floating-point noise (Ray rounds finer
    /// amounts; we refuse them instead of guessing).
    pub fn from_f64(value: f64) -> Result<Amount, AmountError> {
        if !value.is_finite() {
            return Err(AmountError::NotFinite);
        }
        if value < 0.0 {
            return Err(AmountError::Negative);
        }
        let scaled = value * Self::SCALE as f64;
        // u64::MAX as f64 rounds up to 2^64; stay strictly below it.
        if scaled >= u64::MAX as f64 {
            return Err(AmountError::TooLarge);
        }
        let rounded = scaled.round();
        if (scaled - rounded).abs() > 1e-6 * rounded.max(1.0) {
            return Err(AmountError::TooFine);
        }
        Ok(Amount(rounded as u64))
    }

    /// Like [`Amount::from_f64`], but rounds amounts finer than `0.0001` to the nearest
    /// unit, as Ray itself does with what a raylet reports.
    pub fn from_f64_rounded(value: f64) -> Result<Amount, AmountError> {
        match Amount::from_f64(value) {
            Err(AmountError::TooFine) => Ok(Amount((value * Self::SCALE as f64).round() as u64)),
            other => other,
        }
    }

    /// The amount as a floating-point number of resource units.
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / Self::SCALE as f64
    }

    /// Whether the amount is zero.
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// `self + other`, or `None` on overflow.
    pub const fn checked_add(self, other: Amount) -> Option<Amount> {
        match self.0.checked_add(other.0) {
            Some(units) => Some(Amount(units)),
            None => None,
        }
    }

    /// `self * factor`, or `None` on overflow.
    pub const fn checked_mul(self, factor: u64) -> Option<Amount> {
        match self.0.checked_mul(factor) {
            Some(units) => Some(Amount(units)),
            None => None,
        }
    }

    /// `self - other`, or zero when `other` is larger.
    pub const fn saturating_sub(self, other: Amount) -> Amount {
        Amount(self.0.saturating_sub(other.0))
    }

    /// `self + other`, saturating at the largest amount.
    pub const fn saturating_add(self, other: Amount) -> Amount {
        Amount(self.0.saturating_add(other.0))
    }
}

impl fmt::Display for Amount {
    /// Whole amounts print as integers (`8`), others with the decimals they need
    /// (`0.0001`, `1.5`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.0 / Self::SCALE;
        let frac = self.0 % Self::SCALE;
        if frac == 0 {
            write!(f, "{whole}")
        } else {
            let digits = format!("{frac:04}");
            write!(f, "{whole}.{}", digits.trim_end_matches('0'))
        }
    }
}

/// An amount and its noun: `1 GPU`, `0.5 GPUs`, `8 GPUs` (a fraction takes the plural).
pub struct AmountOf<'a>(pub Amount, pub &'a str);

impl fmt::Display for AmountOf<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plural = if self.0.units() == Amount::SCALE {
            ""
        } else {
            "s"
        };
        write!(f, "{} {}{plural}", self.0, self.1)
    }
}

impl fmt::Debug for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Amount({self})")
    }
}

/// An amount in JSON: a whole number when whole (`8`), else the number (`0.0001`), as
/// Ray's APIs write resource amounts.
impl serde::Serialize for Amount {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(Self::SCALE) {
            serializer.serialize_u64(self.0 / Self::SCALE)
        } else {
            serializer.serialize_f64(self.as_f64())
        }
    }
}

/// Well-known Ray resource names.
pub mod names {
    /// CPUs.
    pub const CPU: &str = "CPU";
    /// NVIDIA (or AMD) GPUs.
    pub const GPU: &str = "GPU";
    /// Ascend NPUs.
    pub const NPU: &str = "NPU";
    /// Memory in bytes; not a demand of ours.
    pub const MEMORY: &str = "memory";
    /// Object store memory in bytes; not a demand of ours.
    pub const OBJECT_STORE_MEMORY: &str = "object_store_memory";

    /// Whether a resource is one of Ray's own bookkeeping resources, which a pool never
    /// demands and an inventory ignores: `CPU_group_*`, `GPU_group_*`, `bundle_group_*`,
    /// `node:<ip>`, `memory` and `object_store_memory`.
    pub fn is_ray_internal(name: &str) -> bool {
        INTERNAL.contains(&name)
            || INTERNAL_PREFIXES.iter().any(|p| name.starts_with(p))
            || INTERNAL_INFIXES.iter().any(|i| name.contains(i))
    }

    /// Ray's internal resources by whole name.
    pub const INTERNAL: &[&str] = &[MEMORY, OBJECT_STORE_MEMORY];
    /// The starts of Ray's internal resource names (`node:10.0.0.1`).
    pub const INTERNAL_PREFIXES: &[&str] = &["node:"];
    /// What Ray's placement-group resource names contain (`CPU_group_<pg>`,
    /// `GPU_group_0_<pg>`, `bundle_group_<pg>`).
    pub const INTERNAL_INFIXES: &[&str] = &["_group_"];
}

/// A set of resource amounts by name, kept sorted by name. Zero amounts are not stored.
///
/// Held as one short sorted list behind an `Arc` (a node or a slot names a handful of
/// resources): reading a node's resources touches one allocation, and a clone shares it.
/// Nodes with equal resources can share one list ([`Cluster::share_equal_resources`]), so
/// reading a homogeneous cluster reads one list from cache instead of one per node.
///
/// [`Cluster::share_equal_resources`]: super::Cluster::share_equal_resources
#[derive(Clone, Default, Eq)]
pub struct Resources(Arc<[(ResourceName, Amount)]>);

impl Resources {
    /// No resources.
    pub fn new() -> Resources {
        Resources::default()
    }

    fn position(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(held, _)| held.as_str().cmp(name))
    }

    /// The amount of `name`, zero when absent.
    pub fn get(&self, name: &str) -> Amount {
        match self.position(name) {
            Ok(i) => self.0[i].1,
            Err(_) => Amount::ZERO,
        }
    }

    /// Sets `name` to `amount` (removing it when zero).
    pub fn set(&mut self, name: impl Into<ResourceName>, amount: Amount) {
        let name = name.into();
        let mut entries = match (self.position(name.as_str()), amount.is_zero()) {
            (Err(_), true) => return,
            (Ok(i), _) if self.0[i].1 == amount => return,
            (at, _) => {
                let mut entries = self.0.to_vec();
                match at {
                    Ok(i) if amount.is_zero() => {
                        entries.remove(i);
                    }
                    Ok(i) => entries[i].1 = amount,
                    Err(i) => entries.insert(i, (name, amount)),
                }
                entries
            }
        };
        entries.shrink_to_fit();
        self.0 = Arc::from(entries);
    }

    /// Adds `amount` to `name`; `None` (and no change) on overflow.
    pub fn add(&mut self, name: &str, amount: Amount) -> Option<()> {
        let sum = self.get(name).checked_add(amount)?;
        self.set(name, sum);
        Some(())
    }

    /// Builder form of [`Resources::set`].
    pub fn with(mut self, name: impl Into<ResourceName>, amount: Amount) -> Resources {
        self.set(name, amount);
        self
    }

    /// Every amount multiplied by `factor`; `None` on overflow.
    pub fn checked_mul(&self, factor: u64) -> Option<Resources> {
        let mut out = Vec::with_capacity(self.0.len());
        for (name, amount) in self.0.iter() {
            let product = amount.checked_mul(factor)?;
            if !product.is_zero() {
                out.push((name.clone(), product));
            }
        }
        Some(Resources(Arc::from(out)))
    }

    /// The non-zero resources, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Amount)> + '_ {
        self.0.iter().map(|(name, amount)| (name.as_str(), *amount))
    }

    /// The non-zero resources with their names as [`ResourceName`]s, sorted by name.
    pub fn entries(&self) -> impl Iterator<Item = (&ResourceName, Amount)> + '_ {
        self.0.iter().map(|(name, amount)| (name, *amount))
    }

    /// Whether no resource is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of resources set.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether `self` and `other` share one list (then they are equal).
    pub fn shares_with(&self, other: &Resources) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// The identity of the list held (its address): equal for resources that share one
    /// list ([`Resources::shares_with`]), distinct for lists alive at the same time
    /// otherwise. A key to remember lists already read while they are borrowed.
    pub fn list_id(&self) -> usize {
        Arc::as_ptr(&self.0).cast::<()>() as usize
    }

    /// Whether every amount in `demand` is at most what `self` holds. Both lists are
    /// walked once, in their order of names (a reader checks `available` within `total`
    /// for every node of a file, and these lists are short).
    pub fn covers(&self, demand: &Resources) -> bool {
        let mut held = self.0.iter();
        let mut next = held.next();
        'demand: for (name, amount) in demand.0.iter() {
            while let Some((held_name, all)) = next {
                match held_name.as_str().cmp(name.as_str()) {
                    std::cmp::Ordering::Less => next = held.next(),
                    std::cmp::Ordering::Equal => {
                        if amount > all {
                            return false;
                        }
                        next = held.next();
                        continue 'demand;
                    }
                    std::cmp::Ordering::Greater => break,
                }
            }
            // `self` holds none of `name`.
            if !amount.is_zero() {
                return false;
            }
        }
        true
    }

    /// What `self` still holds after `demand` is taken, each amount saturating at zero.
    pub fn saturating_sub(&self, demand: &Resources) -> Resources {
        let mut out: Vec<(ResourceName, Amount)> = Vec::with_capacity(self.0.len());
        for (name, amount) in self.0.iter() {
            let left = amount.saturating_sub(demand.get(name));
            if !left.is_zero() {
                out.push((name.clone(), left));
            }
        }
        Resources(Arc::from(out))
    }
}

impl PartialEq for Resources {
    fn eq(&self, other: &Resources) -> bool {
        self.shares_with(other) || self.0 == other.0
    }
}

impl Hash for Resources {
    /// As the list it holds, whether shared or not (equal resources hash equally).
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

impl fmt::Debug for Resources {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<N: Into<ResourceName>> FromIterator<(N, Amount)> for Resources {
    /// Later entries of one name replace earlier ones; zero amounts are dropped.
    fn from_iter<I: IntoIterator<Item = (N, Amount)>>(iter: I) -> Resources {
        let mut entries: Vec<(ResourceName, Amount)> =
            iter.into_iter().map(|(n, a)| (n.into(), a)).collect();
        // A stable sort keeps equal names in input order: the last one wins.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(ResourceName, Amount)> = Vec::with_capacity(entries.len());
        for (name, amount) in entries {
            match out.last_mut() {
                Some(last) if last.0 == name => last.1 = amount,
                _ => out.push((name, amount)),
            }
        }
        out.retain(|(_, amount)| !amount.is_zero());
        Resources(Arc::from(out))
    }
}

/// Resources in JSON: an object of amounts by name, in name order (`{"CPU": 24, "GPU": 8}`).
impl serde::Serialize for Resources {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl fmt::Display for Resources {
    /// `{CPU: 24, GPU: 8}`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (name, amount)) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{name}: {amount}")?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_the_amount_not_its_units() {
        assert_eq!(
            format!("{:?}", Amount::from_whole(20).unwrap()),
            "Amount(20)"
        );
        assert_eq!(format!("{:?}", Amount::from_units(5_000)), "Amount(0.5)");
        assert_eq!(format!("{:?}", Amount::EPSILON), "Amount(0.0001)");
    }

    #[test]
    fn amounts_hold_ray_fixed_point() {
        assert_eq!(Amount::from_f64(0.0001), Ok(Amount::EPSILON));
        assert_eq!(Amount::from_f64(1.5).map(Amount::units), Ok(15_000));
        assert_eq!(Amount::from_i64(8), Ok(Amount::from_units(80_000)));
        assert_eq!(Amount::from_f64(0.00001), Err(AmountError::TooFine));
        assert_eq!(Amount::from_f64_rounded(0.00004), Ok(Amount::ZERO));
        assert_eq!(Amount::from_f64(-1.0), Err(AmountError::Negative));
        assert_eq!(Amount::from_f64(f64::NAN), Err(AmountError::NotFinite));
        assert_eq!(Amount::from_f64(f64::INFINITY), Err(AmountError::NotFinite));
        assert_eq!(Amount::from_f64(1e300), Err(AmountError::TooLarge));
        assert_eq!(Amount::from_i64(-3), Err(AmountError::Negative));
        assert_eq!(Amount::from_i64(i64::MAX), Err(AmountError::TooLarge));
    }

    #[test]
    fn whole_amounts_fail_as_the_other_constructors_do() {
        // One error type for every constructor from a number: `?` works on them all.
        let whole = |n: u64| -> Result<Amount, AmountError> { Amount::from_whole(n) };
        assert_eq!(whole(8), Amount::from_i64(8));
        assert_eq!(
            whole(Amount::MAX_WHOLE).map(Amount::units),
            Ok(Amount::MAX_WHOLE * Amount::SCALE)
        );
        assert_eq!(whole(Amount::MAX_WHOLE + 1), Err(AmountError::TooLarge));
        assert_eq!(whole(u64::MAX), Err(AmountError::TooLarge));
        const EIGHT: Result<Amount, AmountError> = Amount::from_whole(8);
        assert_eq!(EIGHT, Ok(Amount::from_units(80_000)));
    }

    #[test]
    fn amounts_print_like_people_write_them() {
        assert_eq!(
            Amount::from_whole(8).map(|a| a.to_string()).as_deref(),
            Ok("8")
        );
        assert_eq!(Amount::EPSILON.to_string(), "0.0001");
        assert_eq!(Amount::from_units(15_000).to_string(), "1.5");
    }

    #[test]
    fn resources_drop_zero_and_compare_per_name() {
        let node: Resources = [("GPU", Amount::from_units(80_000)), ("CPU", Amount::ZERO)]
            .into_iter()
            .collect();
        assert_eq!(node.len(), 1);
        let demand = Resources::new().with("GPU", Amount::from_units(40_000));
        assert!(node.covers(&demand));
        assert!(!demand.covers(&node));
        assert_eq!(node.saturating_sub(&demand).get("GPU").units(), 40_000);
        assert_eq!(node.to_string(), "{GPU: 8}");
    }

    proptest::proptest! {
        /// The sorted list behaves as the map it stands for: `set` (zero removes), the
        /// last value of a name wins in `collect`, and `get`, `iter`, `covers` and
        /// `saturating_sub` agree with a `BTreeMap` model.
        #[test]
        fn resources_behave_as_a_map(
            ops in proptest::collection::vec((0usize..6, 0u64..4), 0..24),
            other in proptest::collection::vec((0usize..6, 0u64..4), 0..8),
        ) {
            use std::collections::BTreeMap;
            const NAMES: [&str; 6] = ["GPU", "CPU", "NPU", "memory", "x", "accelerator_type:A"];
            let mut model = BTreeMap::new();
            let mut set = Resources::new();
            for &(n, a) in &ops {
                set.set(NAMES[n], Amount::from_units(a));
                if a == 0 { model.remove(NAMES[n]); } else { model.insert(NAMES[n], a); }
            }
            let collected: Resources =
                ops.iter().map(|&(n, a)| (NAMES[n], Amount::from_units(a))).collect();
            let listed: Vec<(&str, u64)> = set.iter().map(|(n, a)| (n, a.units())).collect();
            let expected: Vec<(&str, u64)> = model.iter().map(|(n, a)| (*n, *a)).collect();
            proptest::prop_assert_eq!(&listed, &expected);
            proptest::prop_assert_eq!(&collected, &set);
            for name in NAMES {
                proptest::prop_assert_eq!(set.get(name).units(), model.get(name).copied().unwrap_or(0));
            }
            let demand: Resources =
                other.iter().map(|&(n, a)| (NAMES[n], Amount::from_units(a))).collect();
            let covers = demand.iter().all(|(n, a)| model.get(n).copied().unwrap_or(0) >= a.units());
            proptest::prop_assert_eq!(set.covers(&demand), covers);
            let left = set.saturating_sub(&demand);
            for name in NAMES {
                let want = model.get(name).copied().unwrap_or(0).saturating_sub(demand.get(name).units());
                proptest::prop_assert_eq!(left.get(name).units(), want);
            }
            proptest::prop_assert!(left.iter().all(|(_, a)| !a.is_zero()));
        }
    }

    #[test]
    fn ray_internal_resources_are_recognised() {
        for name in [
            "memory",
            "object_store_memory",
            "node:127.0.0.2",
            "CPU_group_abc",
            "GPU_group_0_abc",
            "bundle_group_1_abc",
        ] {
            assert!(names::is_ray_internal(name), "{name}");
        }
        for name in ["CPU", "GPU", "NPU", "accelerator_type:H100", "my_custom"] {
            assert!(!names::is_ray_internal(name), "{name}");
        }
    }

    #[test]
    fn an_amount_of_one_is_singular_and_every_other_plural() {
        let amount = |units| AmountOf(Amount::from_units(units), "GPU").to_string();
        assert_eq!(amount(Amount::SCALE), "1 GPU");
        assert_eq!(amount(Amount::SCALE / 2), "0.5 GPUs");
        assert_eq!(amount(8 * Amount::SCALE), "8 GPUs");
    }
}
