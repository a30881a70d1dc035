//! Secrets: random tokens, their stored hashes, and operator passwords.
//!
//! Bearer tokens are 256-bit random values, so a plain SHA-256 is enough to
//! store them (nothing to brute-force); passwords are chosen by people and
//! get argon2id. Hashing a password is slow on purpose: call these from
//! `spawn_blocking`.

use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;
use rand::RngCore;
use sha2::{Digest, Sha256};

/// The stored form of a bearer token. Deliberately not `Serialize`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct TokenHash(String);

impl TokenHash {
    pub fn of(token: &str) -> Self {
        Self(hex::encode(Sha256::digest(token.as_bytes())))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenHash(…)")
    }
}

/// A fresh 256-bit token, hex-encoded (URL- and header-safe).
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// A readable random password for generated demo logins.
pub fn new_password() -> String {
    let mut bytes = [0u8; 12];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// argon2id PHC string of a password (blocking, ~tens of ms).
pub fn hash_password(password: &str) -> Result<String, argon2::password_hash::Error> {
    let salt = SaltString::generate(&mut OsRng);
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)?
        .to_string())
}

/// [`hash_password`] on the blocking pool, for async callers.
pub async fn hash_password_off_thread(password: String) -> anyhow::Result<String> {
    let phc = tokio::task::spawn_blocking(move || hash_password(&password)).await?;
    phc.map_err(|e| anyhow::anyhow!("cannot hash the password: {e}"))
}

/// Whether `password` matches the stored PHC string (blocking). A malformed
/// stored hash never matches.
pub fn verify_password(password: &str, phc: &str) -> bool {
    PasswordHash::new(phc)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A real argon2id hash of nothing anyone knows: verified against when the
/// username does not exist, so both failures cost the same time.
pub fn decoy_hash() -> &'static str {
    static DECOY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DECOY.get_or_init(|| hash_password(&new_token()).unwrap_or_default())
}

/// A secret that never shows up in logs or `Debug` output.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: String) -> Self {
        Self(value)
    }
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(…)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_round_trip_through_argon2id() {
        let phc = hash_password("correct horse").expect("hashes");
        assert!(phc.starts_with("$argon2id$"));
        assert!(verify_password("correct horse", &phc));
        assert!(!verify_password("wrong horse", &phc));
        assert!(!verify_password("correct horse", "not a phc string"));
    }

    #[test]
    fn tokens_are_unique_and_hash_stably() {
        let a = new_token();
        assert_eq!(a.len(), 64);
        assert_ne!(a, new_token());
        assert_eq!(TokenHash::of(&a), TokenHash::of(&a));
        assert_ne!(TokenHash::of(&a).as_str(), a);
    }
}
