//! One module per page.

mod login;
pub mod mesh;
mod not_found;
mod notifications;
mod overview;
mod routes;
mod server_card;
mod servers;
mod settings;
mod user_card;
mod users;

pub use login::LoginPage;
pub use mesh::MeshPage;
pub use not_found::NotFoundPage;
pub use notifications::NotificationsPage;
pub use overview::OverviewPage;
pub use routes::RoutesPage;
pub use server_card::ServerCardPage;
pub use servers::ServersPage;
pub use settings::SettingsPage;
pub use user_card::UserCardPage;
pub use users::UsersPage;
