//! `meshwatch-server`: wiring only — configuration, tracing, commands.

use meshwatch_server::crypto::secrets;
use meshwatch_server::ops::cli::{self, Command, USAGE};
use meshwatch_server::ops::config::Config;
use meshwatch_server::ops::startup::{self, Application};
use meshwatch_server::store::Store;
use std::io::Write;
use std::process::ExitCode;
use tracing_subscriber::EnvFilter;

// Page rendering allocates many small strings; mimalloc spends about a
// third of glibc malloc's time on them (measured by `benches/panel_ssr`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// No core dumps and no `ptrace` or `/proc/<pid>/environ` reads by other
/// processes of the same user (an action's command among them): the
/// panel's memory and environment hold its keys and tokens.
fn not_dumpable() {
    // SAFETY: prctl(2) with PR_SET_DUMPABLE takes plain integers and
    // touches no memory of ours.
    let done = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0) };
    if done != 0 {
        eprintln!("warning: cannot make the panel's process non-dumpable");
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    not_dumpable();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env()
                // The demo's in-process agents would say at info what every
                // agent says; their warnings and errors still show.
                .unwrap_or_else(|_| {
                    EnvFilter::new("info,sqlx=warn,tower_http=warn,meshwatch_agent=warn")
                }),
        )
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let command = match Command::parse(&args) {
        Ok(command) => command,
        Err(err) => {
            eprintln!("{err}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    // These answer even when the configuration is what is wrong.
    match command {
        Command::Help => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Command::Version => {
            for line in cli::version::lines(Config::from_env().ok().as_ref()).await {
                println!("{line}");
            }
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(err) => {
            eprintln!("configuration error: {err}");
            return ExitCode::from(2);
        }
    };
    let outcome = match command {
        Command::Serve => serve(config).await,
        Command::CreateOperator(name) => create_operator(config, &name).await,
        Command::CheckConfig => return cli::check_config::run(&config).await,
        Command::Backup(file) => cli::backup::run(&config, &file).await.map_err(Into::into),
        Command::Restore(file) => cli::restore::run(&config, &file).await.map_err(Into::into),
        Command::Version | Command::Help => Ok(()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(config: Config) -> anyhow::Result<()> {
    // Listen for SIGTERM before saying we are up: a supervisor may stop us
    // right after, and an unhandled SIGTERM kills instead of draining.
    let terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let app = Application::build(config).await?;
    for line in &app.announcements {
        println!("{line}");
    }
    let address = app.local_addr()?;
    tracing::info!("meshwatch panel listening on http://{address}");
    if let Some(welcome) = &app.demo_welcome {
        // Last, so that it is what `make run` leaves on the screen; in one
        // piece (no log line from another task in between), and a closed
        // stdout is no reason to stop.
        let mut out = std::io::stdout().lock();
        for line in welcome.lines(address) {
            let _ = writeln!(out, "{line}");
        }
        let _ = out.flush();
    }
    app.run_until(shutdown_signal(terminate)).await?;
    tracing::info!("meshwatch panel stopped");
    Ok(())
}

/// SIGTERM (service managers) or Ctrl-C.
async fn shutdown_signal(mut terminate: tokio::signal::unix::Signal) {
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = terminate.recv() => {},
    }
    tracing::info!("shutting down: finishing in-flight requests");
}

async fn create_operator(config: Config, name: &str) -> anyhow::Result<()> {
    let name = meshwatch::account::check_username(name)?;
    let password = match config.operator_password {
        Some(p) => p.expose().to_owned(),
        None => {
            let first = rpassword::prompt_password(format!("Password for {name}: "))?;
            let again = rpassword::prompt_password("Repeat the password: ")?;
            if first != again {
                anyhow::bail!("the two passwords differ");
            }
            first
        }
    };
    if password.chars().count() < meshwatch::account::MIN_PASSWORD_LEN {
        anyhow::bail!(
            "passwords need at least {} characters",
            meshwatch::account::MIN_PASSWORD_LEN
        );
    }
    // The store seals subscription tokens left in clear as it opens, so it
    // needs the panel's key here too (made now if this is the first start).
    let sealing = meshwatch_server::store::key_file::key_for_database(
        config.secret_key.as_ref(),
        config.database_url.as_str(),
    )?;
    if let Some(path) = &sealing.generated {
        println!("{}", startup::key_file_made(path));
    }
    let store = Store::open_url(&config.database_url, sealing.key).await?;
    let hash = secrets::hash_password_off_thread(password).await?;
    let created = store.upsert_operator(name, &hash).await?;
    store.close().await;
    if created {
        println!("Operator {name:?} created.");
    } else {
        println!("Operator {name:?} already existed: password replaced, their sessions ended.");
    }
    Ok(())
}
