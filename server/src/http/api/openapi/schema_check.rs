//! Checks a JSON value against a schema of the OpenAPI document: the
//! subset of JSON Schema that utoipa writes (`$ref`, `type`, `properties`,
//! `required`, `additionalProperties`, `items`, `enum`, `const`, `oneOf`,
//! `anyOf`, `allOf`), so the contract check needs no schema engine.
//!
//! One rule is stricter than JSON Schema: an object schema with
//! `properties` and no `additionalProperties` is closed. The document
//! must name every field the API sends.

use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Every way `value` departs from `schema`, each with its JSON path.
pub fn check(document: &Value, schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    Checker { document }.value(schema, value, "$", &BTreeSet::new(), &mut errors);
    errors
}

struct Checker<'a> {
    document: &'a Value,
}

impl<'a> Checker<'a> {
    fn resolve(&self, schema: &'a Value) -> &'a Value {
        let mut schema = schema;
        // A chain of references ends within the document's size.
        for _ in 0..64 {
            match schema.get("$ref").and_then(Value::as_str) {
                Some(reference) => {
                    let pointer = reference.trim_start_matches('#');
                    match self.document.pointer(pointer) {
                        Some(target) => schema = target,
                        None => return &Value::Bool(false),
                    }
                }
                None => return schema,
            }
        }
        schema
    }

    /// `allowed`: property names an enclosing `allOf` declares elsewhere.
    fn value(
        &self,
        schema: &'a Value,
        value: &Value,
        at: &str,
        allowed: &BTreeSet<String>,
        errors: &mut Vec<String>,
    ) {
        let schema = self.resolve(schema);
        let Some(rules) = schema.as_object() else {
            if schema == &Value::Bool(false) {
                errors.push(format!("{at}: no value is allowed here"));
            }
            return;
        };
        if let Some(options) = rules.get("enum").and_then(Value::as_array) {
            if !options.contains(value) {
                errors.push(format!("{at}: {value} is not one of {options:?}"));
            }
        }
        if let Some(constant) = rules.get("const") {
            if constant != value {
                errors.push(format!("{at}: {value} is not {constant}"));
            }
        }
        if let Some(kinds) = rules.get("type") {
            let kinds: Vec<&str> = match kinds {
                Value::String(one) => vec![one.as_str()],
                Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            if !kinds.iter().any(|kind| is_of_type(value, kind)) {
                errors.push(format!(
                    "{at}: {} is not {}",
                    type_name(value),
                    kinds.join(" or ")
                ));
                return;
            }
        }
        for branch in rules
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let mut declared = allowed.clone();
            declared.extend(self.all_of_properties(rules));
            self.value(branch, value, at, &declared, errors);
        }
        for (keyword, exactly_one) in [("oneOf", true), ("anyOf", false)] {
            let Some(branches) = rules.get(keyword).and_then(Value::as_array) else {
                continue;
            };
            let outcomes: Vec<Vec<String>> = branches
                .iter()
                .map(|branch| {
                    let mut found = Vec::new();
                    self.value(branch, value, at, allowed, &mut found);
                    found
                })
                .collect();
            let matching = outcomes.iter().filter(|found| found.is_empty()).count();
            let fine = if exactly_one {
                matching == 1
            } else {
                matching >= 1
            };
            if !fine {
                let closest = outcomes.iter().min_by_key(|found| found.len()).cloned();
                errors.push(format!(
                    "{at}: matches {matching} of the {} {keyword} branches{}",
                    branches.len(),
                    closest
                        .filter(|c| !c.is_empty())
                        .map(|c| format!(" (nearest: {})", c.join("; ")))
                        .unwrap_or_default()
                ));
            }
        }
        if let Value::Object(fields) = value {
            self.object(rules, fields, at, allowed, errors);
        }
        if let (Value::Array(items), Some(item)) = (value, rules.get("items")) {
            for (i, element) in items.iter().enumerate() {
                self.value(
                    item,
                    element,
                    &format!("{at}[{i}]"),
                    &BTreeSet::new(),
                    errors,
                );
            }
        }
    }

    fn object(
        &self,
        rules: &'a Map<String, Value>,
        fields: &Map<String, Value>,
        at: &str,
        allowed: &BTreeSet<String>,
        errors: &mut Vec<String>,
    ) {
        let properties = rules.get("properties").and_then(Value::as_object);
        // A flattened type (`allOf`): what each branch declares is declared.
        let mut allowed = allowed.clone();
        allowed.extend(self.all_of_properties(rules));
        for name in rules
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = name.as_str() {
                if !fields.contains_key(name) {
                    errors.push(format!("{at}: the required field {name:?} is missing"));
                }
            }
        }
        for (name, field) in fields {
            let path = format!("{at}.{name}");
            if let Some(schema) = properties.and_then(|p| p.get(name)) {
                self.value(schema, field, &path, &BTreeSet::new(), errors);
                continue;
            }
            if allowed.contains(name) {
                continue;
            }
            match rules.get("additionalProperties") {
                Some(Value::Bool(true)) => {}
                Some(extra @ Value::Object(_)) => {
                    self.value(extra, field, &path, &BTreeSet::new(), errors)
                }
                // Closed, also when absent (the stricter rule above) — unless
                // the schema says nothing about properties at all.
                Some(Value::Bool(false)) => {
                    errors.push(format!("{path}: the document does not name this field"))
                }
                _ if properties.is_some() || rules.contains_key("allOf") => {
                    errors.push(format!("{path}: the document does not name this field"))
                }
                _ => {}
            }
        }
    }

    /// The property names every branch of an `allOf` declares (through
    /// references and nested `allOf`s).
    fn all_of_properties(&self, rules: &'a Map<String, Value>) -> BTreeSet<String> {
        let mut names = BTreeSet::new();
        for branch in rules
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let branch = self.resolve(branch);
            if let Some(properties) = branch.get("properties").and_then(Value::as_object) {
                names.extend(properties.keys().cloned());
            }
            if let Some(inner) = branch.as_object() {
                names.extend(self.all_of_properties(inner));
            }
        }
        names
    }
}

fn is_of_type(value: &Value, kind: &str) -> bool {
    match kind {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn document() -> Value {
        json!({"components": {"schemas": {
            "Base": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
            "Flat": {"allOf": [
                {"$ref": "#/components/schemas/Base"},
                {"type": "object", "required": ["active"], "properties": {"active": {"type": "boolean"}}}
            ]},
            "Kind": {"type": "string", "enum": ["ip", "sni"]},
            "Maybe": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/Kind"}]},
            "Tokens": {"type": "object", "additionalProperties": {"type": "string"}},
        }}})
    }

    fn errors(schema: &str, value: Value) -> Vec<String> {
        let doc = document();
        let schema = json!({"$ref": format!("#/components/schemas/{schema}")});
        check(&doc, &schema, &value)
    }

    #[test]
    fn a_value_the_document_describes_passes() {
        assert_eq!(errors("Base", json!({"id": "de-1"})), Vec::<String>::new());
        assert_eq!(
            errors("Flat", json!({"id": "de-1", "active": true})),
            Vec::<String>::new()
        );
        assert_eq!(errors("Maybe", json!(null)), Vec::<String>::new());
        assert_eq!(errors("Maybe", json!("sni")), Vec::<String>::new());
        assert_eq!(errors("Tokens", json!({"de-1": "t"})), Vec::<String>::new());
    }

    #[test]
    fn a_field_the_document_does_not_name_fails_even_through_all_of() {
        assert_eq!(errors("Base", json!({"id": "a", "new": 1})).len(), 1);
        let found = errors("Flat", json!({"id": "a", "active": true, "new": 1}));
        assert!(found.iter().all(|e| e.contains("$.new")), "{found:?}");
        assert!(!found.is_empty());
    }

    #[test]
    fn a_wrong_type_a_missing_field_and_a_value_outside_the_enum_fail() {
        assert_eq!(
            errors("Base", json!({"id": 3})),
            vec!["$.id: a number is not string"]
        );
        assert_eq!(errors("Flat", json!({"id": "a"})).len(), 1);
        assert_eq!(errors("Maybe", json!("protocol")).len(), 1);
        assert_eq!(errors("Tokens", json!({"de-1": 1})).len(), 1);
    }
}
