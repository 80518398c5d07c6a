//! Random tokens the program hands out: sessions, a form's CSRF token, one-time codes.

use super::journal::hex;

/// 32 random bytes from the operating system, as 64 hex digits.
/// (domain knows no `Error`: the caller says what it was drawing for, see `Error::from`.)
pub fn random_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(hex(&bytes))
}
