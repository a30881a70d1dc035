//! Integration tests: the real router on port 0 with a fresh SQLite file.

mod account;
mod agent;
mod attacks;
mod backup;
mod binary;
mod crash;
mod fleet;
mod forms;
mod health;
mod helpers;
mod intake;
mod languages;
mod live_agents;
mod live_events;
mod login;
mod notifications;
mod replicas;
mod scenarios;
mod sealed_tokens;
mod security_headers;
mod server_card;
mod site;
mod subscription;
mod telegram;
mod upgrades;
mod user_card;
