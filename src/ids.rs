//! Operator-chosen slug identifiers (`[a-z0-9][a-z0-9_-]{0,63}`) and their typed wrappers.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Why a string is not a valid slug.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SlugError {
    #[error("must not be empty")]
    Empty,
    #[error("must be at most 64 characters")]
    TooLong,
    #[error("must start with a lowercase letter or digit")]
    BadStart,
    #[error("may only contain lowercase letters, digits, '_' and '-'")]
    BadCharacter,
}

/// A validated slug, the key of every operator-named object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Slug(String);

impl Slug {
    pub fn parse(raw: &str) -> Result<Self, SlugError> {
        let mut chars = raw.chars();
        let first = chars.next().ok_or(SlugError::Empty)?;
        if raw.len() > 64 {
            return Err(SlugError::TooLong);
        }
        if !(first.is_ascii_lowercase() || first.is_ascii_digit()) {
            return Err(SlugError::BadStart);
        }
        if !chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-') {
            return Err(SlugError::BadCharacter);
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Slug {
    type Error = SlugError;
    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<Slug> for String {
    fn from(value: Slug) -> Self {
        value.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Slugs are stored as TEXT (the server's `sqlx` mapping, feature `sqlx`,
/// for any database whose strings are TEXT). A stored value that is not a
/// slug does not decode: a row edited behind the panel's back fails loudly
/// rather than naming an object no API could.
#[cfg(feature = "sqlx")]
mod column {
    use super::Slug;
    use sqlx::encode::IsNull;
    use sqlx::error::BoxDynError;
    use sqlx::{Database, Decode, Encode, Type};

    // The ids' derived mapping asks for it (PostgreSQL's `= ANY($1)`).
    impl sqlx::postgres::PgHasArrayType for Slug {
        fn array_type_info() -> sqlx::postgres::PgTypeInfo {
            <String as sqlx::postgres::PgHasArrayType>::array_type_info()
        }
    }

    impl<DB: Database> Type<DB> for Slug
    where
        String: Type<DB>,
    {
        fn type_info() -> DB::TypeInfo {
            <String as Type<DB>>::type_info()
        }

        fn compatible(ty: &DB::TypeInfo) -> bool {
            <String as Type<DB>>::compatible(ty)
        }
    }

    impl<'q, DB: Database> Encode<'q, DB> for Slug
    where
        String: Encode<'q, DB>,
    {
        fn encode_by_ref(
            &self,
            buf: &mut <DB as Database>::ArgumentBuffer<'q>,
        ) -> Result<IsNull, BoxDynError> {
            <String as Encode<'q, DB>>::encode_by_ref(&self.0, buf)
        }

        fn size_hint(&self) -> usize {
            <String as Encode<'q, DB>>::size_hint(&self.0)
        }
    }

    impl<'r, DB: Database> Decode<'r, DB> for Slug
    where
        &'r str: Decode<'r, DB>,
    {
        fn decode(value: <DB as Database>::ValueRef<'r>) -> Result<Self, BoxDynError> {
            Ok(Slug::parse(<&str as Decode<'r, DB>>::decode(value)?)?)
        }
    }
}

macro_rules! slug_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(transparent)]
        #[cfg_attr(feature = "sqlx", derive(sqlx::Type), sqlx(transparent))]
        pub struct $name(pub Slug);

        impl $name {
            pub fn parse(raw: &str) -> Result<Self, SlugError> {
                Slug::parse(raw).map(Self)
            }
            pub fn as_str(&self) -> &str {
                self.0.as_str()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

slug_id!(
    /// A route ("Germany"): a group of interchangeable servers.
    RouteId
);
slug_id!(
    /// A VPN server running the meshwatch agent.
    ServerId
);
slug_id!(
    /// One way into a server (protocol, host, port).
    EntryPointId
);
slug_id!(
    /// An end user holding a subscription.
    UserId
);
slug_id!(
    /// A connected panel (Remnawave, Marzban …) meshwatch applies its
    /// rotation in (docs/PRODUCT.md §7).
    ConnectorId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_the_api_pattern() {
        for ok in ["de", "de-1", "0", "a_b-c", &"a".repeat(64)] {
            assert!(Slug::parse(ok).is_ok(), "{ok} should be a slug");
        }
        assert_eq!(Slug::parse(""), Err(SlugError::Empty));
        assert_eq!(Slug::parse(&"a".repeat(65)), Err(SlugError::TooLong));
        assert_eq!(Slug::parse("-de"), Err(SlugError::BadStart));
        assert_eq!(Slug::parse("_de"), Err(SlugError::BadStart));
        assert_eq!(Slug::parse("De"), Err(SlugError::BadStart));
        assert_eq!(Slug::parse("de 1"), Err(SlugError::BadCharacter));
        assert_eq!(Slug::parse("dé"), Err(SlugError::BadCharacter));
        assert_eq!(Slug::parse("de.1"), Err(SlugError::BadCharacter));
    }

    #[test]
    fn a_slug_deserializes_only_when_valid() {
        let ok: Result<ServerId, _> = serde_json::from_str("\"de-1\"");
        assert_eq!(ok.map(|s| s.to_string()).ok(), Some("de-1".to_owned()));
        let bad: Result<ServerId, _> = serde_json::from_str("\"DE 1\"");
        assert!(bad.is_err());
    }
}
