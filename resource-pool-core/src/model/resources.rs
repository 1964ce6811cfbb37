//! Ray resource names and amounts in Ray's fixed point.
//!
//! Ray keeps every resource amount as a fixed-point number with four decimal places
//! (`1/10000` of a unit). We hold amounts the same way, as whole `u64` units, so the
//! placement check compares exactly what Ray compares and never rounds twice.

use std::collections::BTreeMap;
use std::fmt;

/// An amount of one resource, in Ray's fixed point: one unit is `1/10000`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Amount(u64);

/// Why a number cannot be an [`Amount`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
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

    /// A whole number of resource units, or `None` past [`Amount::MAX_WHOLE`].
    pub const fn from_whole(whole: u64) -> Option<Amount> {
        match whole.checked_mul(Self::SCALE) {
            Some(units) => Some(Amount(units)),
            None => None,
        }
    }

    /// A signed whole number, as TOML integers come.
    pub fn from_i64(value: i64) -> Result<Amount, AmountError> {
        let whole = u64::try_from(value).map_err(|_| AmountError::Negative)?;
        Amount::from_whole(whole).ok_or(AmountError::TooLarge)
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

/// The name of a Ray resource, exactly as Ray spells it (`GPU`, `CPU`, `NPU`,
/// `accelerator_type:H100`, `my_custom`).
pub type ResourceName = String;

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
        name == MEMORY
            || name == OBJECT_STORE_MEMORY
            || name.starts_with("node:")
            || name.starts_with("bundle_group_")
            || name.contains("_group_")
    }
}

/// A set of resource amounts by name, kept sorted by name. Zero amounts are not stored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Resources(BTreeMap<ResourceName, Amount>);

impl Resources {
    /// No resources.
    pub fn new() -> Resources {
        Resources::default()
    }

    /// The amount of `name`, zero when absent.
    pub fn get(&self, name: &str) -> Amount {
        self.0.get(name).copied().unwrap_or(Amount::ZERO)
    }

    /// Sets `name` to `amount` (removing it when zero).
    pub fn set(&mut self, name: impl Into<ResourceName>, amount: Amount) {
        let name = name.into();
        if amount.is_zero() {
            self.0.remove(&name);
        } else {
            self.0.insert(name, amount);
        }
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
        let mut out = BTreeMap::new();
        for (name, amount) in &self.0 {
            let product = amount.checked_mul(factor)?;
            if !product.is_zero() {
                out.insert(name.clone(), product);
            }
        }
        Some(Resources(out))
    }

    /// The non-zero resources, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Amount)> + '_ {
        self.0.iter().map(|(name, amount)| (name.as_str(), *amount))
    }

    /// Whether no resource is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Number of resources set.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether every amount in `demand` is at most what `self` holds.
    pub fn covers(&self, demand: &Resources) -> bool {
        demand.iter().all(|(name, amount)| self.get(name) >= amount)
    }

    /// What `self` still holds after `demand` is taken, each amount saturating at zero.
    pub fn saturating_sub(&self, demand: &Resources) -> Resources {
        let mut out = self.clone();
        for (name, amount) in demand.iter() {
            let left = out.get(name).saturating_sub(amount);
            out.set(name, left);
        }
        out
    }
}

impl<N: Into<ResourceName>> FromIterator<(N, Amount)> for Resources {
    fn from_iter<I: IntoIterator<Item = (N, Amount)>>(iter: I) -> Resources {
        let mut out = Resources::new();
        for (name, amount) in iter {
            out.set(name, amount);
        }
        out
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
    fn amounts_print_like_people_write_them() {
        assert_eq!(
            Amount::from_whole(8).map(|a| a.to_string()).as_deref(),
            Some("8")
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
}
