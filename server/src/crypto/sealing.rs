//! Secrets the panel must show again — subscription tokens, for the user
//! card's link — sealed at rest, so that a leaked database or backup does
//! not hand out every subscription.
//!
//! XChaCha20-Poly1305 under a 32-byte key kept outside the database (see
//! `store::key_file`), a random 24-byte nonce per value (large enough that
//! random nonces never repeat in practice), and the owner's user id as
//! associated data, so a sealed value copied onto another user's row does
//! not open. Stored as `v1:` + base64(nonce ‖ ciphertext ‖ tag): the
//! version tells clear values from before sealing (and any later scheme)
//! apart.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{Key, XChaCha20Poly1305, XNonce};
use meshwatch::UserId;
use rand::RngCore;

/// Length of a key, in bytes.
pub const KEY_LEN: usize = 32;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
const VERSION_1: &str = "v1:";

/// The key that seals subscription tokens. Its `Debug` never shows it;
/// the cipher wipes it from memory when dropped.
#[derive(Clone)]
pub struct SealingKey(XChaCha20Poly1305);

impl std::fmt::Debug for SealingKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SealingKey(…)")
    }
}

/// Text that is not a key. Names no part of the text: it is a secret.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "must be 32 bytes written as 64 hex characters or as base64 (`openssl rand -hex 32` makes one)"
)]
pub struct KeyFormatError;

/// Why a value could not be sealed or opened.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SealingError {
    #[error("not a sealed value (`v1:` and base64 expected)")]
    NotSealed,
    #[error(
        "the sealed value does not open: sealed with another key, for another user, or altered"
    )]
    DoesNotOpen,
    #[error("the value is too long to seal")]
    TooLong,
}

impl SealingKey {
    /// A key read from text: 64 hex characters or base64 of 32 bytes,
    /// surrounding whitespace ignored (key files end with a newline).
    pub fn parse(text: &str) -> Result<Self, KeyFormatError> {
        let text = text.trim();
        // Hex first: 64 hex characters are also valid base64 (of 48 bytes).
        let bytes = if text.len() == 2 * KEY_LEN && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            hex::decode(text).map_err(|_| KeyFormatError)?
        } else {
            BASE64.decode(text).map_err(|_| KeyFormatError)?
        };
        let bytes: [u8; KEY_LEN] = bytes.as_slice().try_into().map_err(|_| KeyFormatError)?;
        Ok(Self::from_bytes(&bytes))
    }

    /// A fresh random key that nothing else knows.
    pub fn random() -> Self {
        Self::from_bytes(&random_key_bytes())
    }

    pub fn from_bytes(bytes: &[u8; KEY_LEN]) -> Self {
        Self(XChaCha20Poly1305::new(Key::from_slice(bytes)))
    }

    /// `token` sealed for `user`, in the stored format.
    pub fn seal(&self, user: &UserId, token: &str) -> Result<String, SealingError> {
        self.seal_bound(&associated_data(user), token.as_bytes())
    }

    /// The token that [`seal`](Self::seal) sealed for `user` into `stored`.
    pub fn open(&self, user: &UserId, stored: &str) -> Result<String, SealingError> {
        let clear = self.open_bound(&associated_data(user), stored)?;
        String::from_utf8(clear).map_err(|_| SealingError::DoesNotOpen)
    }

    /// `clear` sealed so that it opens only with the same `bound` (what it
    /// belongs to: a user, a session), as `v1:` and base64.
    pub fn seal_bound(&self, bound: &[u8], clear: &[u8]) -> Result<String, SealingError> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::thread_rng().fill_bytes(&mut nonce);
        let sealed = self
            .0
            .encrypt(
                XNonce::from_slice(&nonce),
                Payload {
                    msg: clear,
                    aad: bound,
                },
            )
            .map_err(|_| SealingError::TooLong)?;
        let mut raw = Vec::with_capacity(NONCE_LEN + sealed.len());
        raw.extend_from_slice(&nonce);
        raw.extend_from_slice(&sealed);
        Ok(format!("{VERSION_1}{}", BASE64.encode(raw)))
    }

    /// What [`seal_bound`](Self::seal_bound) sealed with `bound`.
    pub fn open_bound(&self, bound: &[u8], stored: &str) -> Result<Vec<u8>, SealingError> {
        let raw = sealed_bytes(stored).ok_or(SealingError::NotSealed)?;
        let (nonce, sealed) = raw.split_at(NONCE_LEN);
        self.0
            .decrypt(
                XNonce::from_slice(nonce),
                Payload {
                    msg: sealed,
                    aad: bound,
                },
            )
            .map_err(|_| SealingError::DoesNotOpen)
    }
}

/// Whether `stored` is in the sealed format, whichever key sealed it. A
/// clear token could pass only if made to: `v1:` followed by base64 of at
/// least a nonce and a tag (40 bytes).
pub fn is_sealed(stored: &str) -> bool {
    sealed_bytes(stored).is_some()
}

fn sealed_bytes(stored: &str) -> Option<Vec<u8>> {
    let body = stored.strip_prefix(VERSION_1)?;
    BASE64
        .decode(body)
        .ok()
        .filter(|raw| raw.len() >= NONCE_LEN + TAG_LEN)
}

/// What a sealed token is bound to: its user, and the column, so that a
/// value sealed for another purpose (should there be one) does not open as
/// a subscription token either.
fn associated_data(user: &UserId) -> Vec<u8> {
    format!("meshwatch users.sub_token {}", user.as_str()).into_bytes()
}

/// A fresh random key, as a key file stores it.
pub fn random_key_bytes() -> [u8; KEY_LEN] {
    let mut bytes = [0u8; KEY_LEN];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOKEN: &str = "alice-subscription-token-0001";

    fn user(id: &str) -> UserId {
        UserId::parse(id).expect("a user id")
    }

    #[test]
    fn a_sealed_token_opens_to_itself() {
        let key = SealingKey::random();
        let sealed = key.seal(&user("alice"), TOKEN).expect("seals");
        assert_eq!(key.open(&user("alice"), &sealed), Ok(TOKEN.to_owned()));
    }

    #[test]
    fn the_stored_form_is_versioned_and_hides_the_token() {
        let key = SealingKey::random();
        let sealed = key.seal(&user("alice"), TOKEN).expect("seals");
        assert!(sealed.starts_with("v1:"), "{sealed}");
        assert!(is_sealed(&sealed));
        assert!(!sealed.contains(TOKEN) && !sealed.contains("alice"));
        assert_ne!(
            sealed,
            key.seal(&user("alice"), TOKEN).expect("seals"),
            "a fresh nonce every time"
        );
    }

    #[test]
    fn another_key_does_not_open_it() {
        let sealed = SealingKey::random()
            .seal(&user("alice"), TOKEN)
            .expect("seals");
        assert_eq!(
            SealingKey::random().open(&user("alice"), &sealed),
            Err(SealingError::DoesNotOpen)
        );
    }

    #[test]
    fn a_value_moved_to_another_user_does_not_open() {
        let key = SealingKey::random();
        let sealed = key.seal(&user("alice"), TOKEN).expect("seals");
        assert_eq!(
            key.open(&user("bob"), &sealed),
            Err(SealingError::DoesNotOpen)
        );
    }

    #[test]
    fn an_altered_value_does_not_open() {
        let key = SealingKey::random();
        let sealed = key.seal(&user("alice"), TOKEN).expect("seals");
        let mut raw = sealed_bytes(&sealed).expect("sealed");
        for at in [0, NONCE_LEN, raw.len() - 1] {
            raw[at] ^= 1;
            let altered = format!("v1:{}", BASE64.encode(&raw));
            assert_eq!(
                key.open(&user("alice"), &altered),
                Err(SealingError::DoesNotOpen),
                "byte {at}"
            );
            raw[at] ^= 1;
        }
        let truncated = format!("v1:{}", BASE64.encode(&raw[..raw.len() - 1]));
        assert_eq!(
            key.open(&user("alice"), &truncated),
            Err(SealingError::DoesNotOpen)
        );
    }

    #[test]
    fn clear_tokens_are_not_taken_for_sealed_ones() {
        let key = SealingKey::random();
        for clear in [TOKEN, "v1:short-token-0001", "v2:whatever-it-is-0001", ""] {
            assert!(!is_sealed(clear), "{clear}");
            assert_eq!(
                key.open(&user("alice"), clear),
                Err(SealingError::NotSealed)
            );
        }
    }

    #[test]
    fn keys_are_read_from_hex_or_base64_and_nothing_else() {
        let bytes: Vec<u8> = (0..32).collect();
        let from_hex = SealingKey::parse(&format!("{}\n", hex::encode(&bytes))).expect("hex");
        let from_base64 = SealingKey::parse(&BASE64.encode(&bytes)).expect("base64");
        let sealed = from_hex.seal(&user("alice"), TOKEN).expect("seals");
        assert_eq!(
            from_base64.open(&user("alice"), &sealed),
            Ok(TOKEN.to_owned()),
            "the same key either way"
        );
        for bad in [
            String::new(),
            hex::encode(&bytes[..31]),
            format!("{}00", hex::encode(&bytes)),
            BASE64.encode(&bytes[..16]),
            "not a key at all".to_owned(),
        ] {
            assert_eq!(
                SealingKey::parse(&bad).err(),
                Some(KeyFormatError),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_key_never_shows_in_debug_output() {
        let text = hex::encode([7u8; 32]);
        let key = SealingKey::parse(&text).expect("key");
        let shown = format!("{key:?}");
        assert_eq!(shown, "SealingKey(…)");
    }
}
