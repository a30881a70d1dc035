//! The primitives below everything else, the store included: token and
//! password hashes ([`secrets`]), the [`secrets::Secret`] wrapper that
//! never prints, and the sealing of secrets at rest ([`sealing`]). They
//! import nothing of this crate but each other.

pub mod sealing;
pub mod secrets;
