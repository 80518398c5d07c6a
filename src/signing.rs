//! The stringer's signing key (SPEC 23): Ed25519, kept in a file outside the database (PKCS#8,
//! readable by its owner only), so that whoever holds the database alone cannot sign a
//! closure. The public key is recorded in the journal and printed for the owner to keep.

use crate::domain::journal::{hex, sha256_hex};
use crate::error::Error;
use ring::rand::SystemRandom;
use ring::signature::{Ed25519KeyPair, KeyPair, UnparsedPublicKey, ED25519};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A key pair read from its file.
pub struct SigningKey {
    pair: Ed25519KeyPair,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({})", self.public_hex())
    }
}

/// Where a stringer's key is kept unless told otherwise: `keys/HANDLE.ed25519` in the
/// program's data directory (or in `RECEIPTS_KEY_DIR`).
pub fn default_key_file(handle: &str) -> Result<PathBuf, Error> {
    let dir = match std::env::var_os("RECEIPTS_KEY_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => dirs::data_dir()
            .map(|d| d.join("receipts").join("keys"))
            .ok_or_else(|| Error::Usage("there is no data directory for the key: pass --key-file".into()))?,
    };
    Ok(dir.join(key_file_name(handle)))
}

/// The name of a stringer's key file in a directory of keys.
pub fn key_file_name(handle: &str) -> String {
    format!("{handle}.ed25519")
}

impl SigningKey {
    /// A new key, written to `path` (readable by its owner only); a file there already is
    /// never overwritten.
    pub fn create(path: &Path) -> Result<SigningKey, Error> {
        let document = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
            .map_err(|_| Error::Internal { what: "cannot make a key", detail: "no randomness".into() })?;
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::DirBuilder::new().recursive(true).mode_private().create(dir).map_err(|e| {
                Error::BadInput(format!("cannot make the key's directory {}: {e}", dir.display()))
            })?;
        }
        let mut file =
            std::fs::OpenOptions::new().write(true).create_new(true).mode_private().open(path).map_err(
                |e| match e.kind() {
                    std::io::ErrorKind::AlreadyExists => {
                        Error::OutputExists { path: path.display().to_string(), what: "key" }
                    }
                    _ => Error::BadInput(format!("cannot write the key {}: {e}", path.display())),
                },
            )?;
        let written = file.write_all(document.as_ref()).and_then(|()| file.sync_all());
        if let Err(e) = written {
            let _ = std::fs::remove_file(path);
            return Err(Error::BadInput(format!("cannot write the key {}: {e}", path.display())));
        }
        SigningKey::from_pkcs8(document.as_ref(), path)
    }

    /// The key in `path`.
    pub fn load(path: &Path) -> Result<SigningKey, Error> {
        let bytes = std::fs::read(path).map_err(|e| {
            Error::InputFile(format!(
                "cannot read the signing key {}: {e} (receipts key init makes one)",
                path.display()
            ))
        })?;
        SigningKey::from_pkcs8(&bytes, path)
    }

    fn from_pkcs8(bytes: &[u8], path: &Path) -> Result<SigningKey, Error> {
        Ed25519KeyPair::from_pkcs8_maybe_unchecked(bytes)
            .map(|pair| SigningKey { pair })
            .map_err(|_| Error::InputFile(format!("{} is not an Ed25519 key (PKCS#8)", path.display())))
    }

    /// The public key, as 64 lowercase hex digits.
    pub fn public_hex(&self) -> String {
        hex(self.pair.public_key().as_ref())
    }

    /// The signature of `message`, as 128 lowercase hex digits.
    pub fn sign_hex(&self, message: &[u8]) -> String {
        hex(self.pair.sign(message).as_ref())
    }
}

/// Whether `signature` (hex) is `public_key`'s (hex) signature of `message`.
pub fn verifies(public_key: &str, message: &[u8], signature: &str) -> bool {
    match (unhex(public_key), unhex(signature)) {
        (Some(key), Some(signature)) => {
            UnparsedPublicKey::new(&ED25519, key).verify(message, &signature).is_ok()
        }
        _ => false,
    }
}

/// A public key's short fingerprint for people: the first 16 hex digits of its SHA-256, in
/// groups of four.
pub fn fingerprint(public_key: &str) -> String {
    let digest = sha256_hex(public_key);
    let digits = digest[..16].to_uppercase();
    [&digits[0..4], &digits[4..8], &digits[8..12], &digits[12..16]].join("-")
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok()).collect()
}

/// Files and directories only their owner may read.
trait Private {
    fn mode_private(&mut self) -> &mut Self;
}

impl Private for std::fs::OpenOptions {
    fn mode_private(&mut self) -> &mut Self {
        use std::os::unix::fs::OpenOptionsExt;
        self.mode(0o600)
    }
}

impl Private for std::fs::DirBuilder {
    fn mode_private(&mut self) -> &mut Self {
        use std::os::unix::fs::DirBuilderExt;
        self.mode(0o700)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_with_its_own_key_only_and_for_its_own_message() {
        let dir = std::env::temp_dir().join(format!("receipts-key-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let one = SigningKey::create(&dir.join("one.ed25519")).unwrap();
        let other = SigningKey::create(&dir.join("other.ed25519")).unwrap();
        let signature = one.sign_hex(b"closure");
        assert!(verifies(&one.public_hex(), b"closure", &signature));
        assert!(!verifies(&one.public_hex(), b"closure!", &signature));
        assert!(!verifies(&other.public_hex(), b"closure", &signature));
        assert!(!verifies("zz", b"closure", &signature));
        let reread = SigningKey::load(&dir.join("one.ed25519")).unwrap();
        assert_eq!(reread.public_hex(), one.public_hex());
        let mode = std::fs::metadata(dir.join("one.ed25519")).unwrap().permissions();
        assert_eq!(std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777, 0o600);
        assert!(matches!(SigningKey::create(&dir.join("one.ed25519")), Err(Error::OutputExists { .. })));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
