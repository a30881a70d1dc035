//! OpenAPI schemas of the strings the domain validates by hand (feature
//! `openapi`, which only the server turns on): the document says exactly
//! what [`Slug::parse`] and [`NetworkLabel::parse`] accept.

use crate::controls::{ControlAddress, ControlSni};
use crate::ids::Slug;
use crate::network::{NetworkLabel, MAX_NETWORK_LABEL_CHARS};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::openapi::RefOr;

/// The slug grammar of [`Slug::parse`].
pub const SLUG_PATTERN: &str = "^[a-z0-9][a-z0-9_-]{0,63}$";

impl utoipa::PartialSchema for Slug {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(SLUG_PATTERN))
            .description(Some(
                "An operator-chosen id: a lowercase letter or digit, then up to 63 of a-z, 0-9, '_' and '-'",
            ))
            .into()
    }
}

impl utoipa::ToSchema for Slug {}

impl utoipa::PartialSchema for NetworkLabel {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .min_length(Some(1))
            .max_length(Some(MAX_NETWORK_LABEL_CHARS))
            .description(Some(
                "The network a verifier probes from, as the operator names it; no control characters",
            ))
            .into()
    }
}

impl utoipa::ToSchema for NetworkLabel {}

impl utoipa::PartialSchema for ControlSni {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .max_length(Some(253))
            .description(Some("A DNS name, kept in lower case"))
            .into()
    }
}

impl utoipa::ToSchema for ControlSni {}

impl utoipa::PartialSchema for ControlAddress {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .description(Some("host:port: a DNS name or an IP address (IPv6 in brackets), and a port from 1 to 65535"))
            .into()
    }
}

impl utoipa::ToSchema for ControlAddress {}
