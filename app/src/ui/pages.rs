//! One module per page.

mod login;
mod not_found;
mod server_card;
mod servers;
mod users;

pub use login::LoginPage;
pub use not_found::NotFoundPage;
pub use server_card::ServerCardPage;
pub use servers::ServersPage;
pub use users::UsersPage;
