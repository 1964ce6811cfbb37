//! Kubernetes quantities (`96`, `95500m`, `1.5`, `1056Gi`, `1e9`, `500M`), parsed exactly
//! into Ray's fixed point.

use resource_pool_core::model::Amount;

/// Why a Kubernetes quantity cannot be an [`Amount`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum QuantityError {
    /// Not `<number><suffix>`.
    #[error("is not a Kubernetes quantity")]
    Malformed,
    /// Below zero.
    #[error("is negative")]
    Negative,
    /// Finer than `0.0001` of a unit.
    #[error("is finer than Ray's resolution of 0.0001")]
    TooFine,
    /// Larger than an amount holds.
    #[error("is too large (at most {} units)", Amount::MAX_WHOLE)]
    TooLarge,
}

/// A Kubernetes quantity (`96`, `95500m`, `1.5`, `1056Gi`, `1e9`, `500M`) as an exact
/// [`Amount`]; checked arithmetic throughout, refusing what does not fit exactly.
pub fn parse_quantity(text: &str) -> Result<Amount, QuantityError> {
    let (negative, rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let number_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    let (number, suffix) = rest.split_at(number_len);
    let (int_part, frac_part) = number.split_once('.').unwrap_or((number, ""));
    if (int_part.is_empty() && frac_part.is_empty()) || frac_part.contains('.') {
        return Err(QuantityError::Malformed);
    }
    let (exp10, binary_power): (i128, u32) = match suffix {
        "" => (0, 0),
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 10),
        "Mi" => (0, 20),
        "Gi" => (0, 30),
        "Ti" => (0, 40),
        "Pi" => (0, 50),
        "Ei" => (0, 60),
        exponent => {
            let digits = exponent
                .strip_prefix(['e', 'E'])
                .ok_or(QuantityError::Malformed)?;
            let unsigned = digits.strip_prefix(['+', '-']).unwrap_or(digits);
            if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
                return Err(QuantityError::Malformed);
            }
            // Saturating: any exponent beyond a few dozen is too large or too fine anyway.
            let value = digits.parse::<i64>().unwrap_or(if digits.starts_with('-') {
                i64::MIN
            } else {
                i64::MAX
            });
            (i128::from(value), 0)
        }
    };
    let digits = format!("{int_part}{frac_part}");
    let significant = digits.trim_start_matches('0');
    let mantissa_digits = significant.trim_end_matches('0');
    if mantissa_digits.is_empty() {
        return Ok(Amount::ZERO);
    }
    if negative {
        return Err(QuantityError::Negative);
    }
    let trailing_zeros = (significant.len() - mantissa_digits.len()) as i128;
    // units = mantissa * 2^binary_power * 10^exponent
    let exponent = exp10 + 4 - frac_part.len() as i128 + trailing_zeros;
    if mantissa_digits.len() > 38 {
        return Err(if exponent >= 0 {
            QuantityError::TooLarge
        } else {
            QuantityError::TooFine
        });
    }
    let mantissa: u128 = mantissa_digits
        .parse()
        .map_err(|_| QuantityError::Malformed)?;
    let value = mantissa
        .checked_mul(1u128 << binary_power)
        .ok_or(QuantityError::TooLarge)?;
    let units = if exponent >= 0 {
        let power = u32::try_from(exponent)
            .ok()
            .and_then(|e| 10u128.checked_pow(e))
            .ok_or(QuantityError::TooLarge)?;
        value.checked_mul(power).ok_or(QuantityError::TooLarge)?
    } else {
        // value < 10^39, so it is a multiple of 10^d only for d <= 38.
        let power = u32::try_from(-exponent)
            .ok()
            .and_then(|e| 10u128.checked_pow(e))
            .ok_or(QuantityError::TooFine)?;
        if value % power != 0 {
            return Err(QuantityError::TooFine);
        }
        value / power
    };
    u64::try_from(units)
        .map(Amount::from_units)
        .map_err(|_| QuantityError::TooLarge)
}
