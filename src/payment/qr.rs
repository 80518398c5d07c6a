//! The module matrix of a payment code: the payload as UTF-8 in byte mode, error
//! correction M, the smallest version that holds it.

use qrcode::bits::Bits;
use qrcode::{Color, EcLevel, QrCode, Version};

/// The dark modules, row by row, and the matrix's width in modules.
pub struct Matrix {
    pub width: usize,
    pub dark: Vec<bool>,
}

/// Encodes `payload`; None if no QR version holds it (payloads are bounded far below).
pub fn encode(payload: &str) -> Option<Matrix> {
    (1..=40).find_map(|version| {
        let mut bits = Bits::new(Version::Normal(version));
        bits.push_byte_data(payload.as_bytes()).ok()?;
        bits.push_terminator(EcLevel::M).ok()?;
        let code = QrCode::with_bits(bits, EcLevel::M).ok()?;
        Some(Matrix {
            width: code.width(),
            dark: code.to_colors().into_iter().map(|c| c == Color::Dark).collect(),
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_bill_fits_a_version_of_at_most_25() {
        let matrix = super::encode(&"x".repeat(997)).unwrap();
        assert!(matrix.width <= 117, "version 25 is 117 modules wide");
        assert_eq!(matrix.dark.len(), matrix.width * matrix.width);
    }
}
