//! Random tokens the program hands out: sessions, a form's CSRF token, one-time codes.

use super::journal::hex;
use crate::error::Error;

/// 32 random bytes from the operating system, as 64 hex digits.
pub fn random_token() -> Result<String, Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| Error::Internal { what: "drawing a random token", detail: e.to_string() })?;
    Ok(hex(&bytes))
}
