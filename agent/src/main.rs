//! `meshwatch-agent`: runs on each VPN server (see README, "Installing an
//! agent"). Exit status 2 means the configuration or the command line is
//! wrong; 1 means it failed at run time.

use meshwatch_agent::config::DEFAULT_CONFIG_PATH;
use meshwatch_agent::{self as agent, AgentCounters, AgentSettings};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

const USAGE: &str = "\
usage: meshwatch-agent [--config PATH] [--once]
       meshwatch-agent check-config [--config PATH]

  --config PATH   the TOML configuration (default /etc/meshwatch/agent.toml;
                  MESHWATCH_AGENT_* environment variables override it)
  --once          fetch the panel's configuration, self-check and probe once,
                  print the report that would be sent, and exit (sends nothing)
  check-config    validate the configuration and print what the agent would do";

#[derive(Debug, PartialEq)]
enum Mode {
    Run,
    Once,
    CheckConfig,
    Help,
    Version,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<(Mode, Option<PathBuf>), String> {
    let mut mode = Mode::Run;
    let mut config = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--config" | "-c" => {
                let path = args.next().ok_or("--config needs a path")?;
                config = Some(PathBuf::from(path));
            }
            "--once" if mode == Mode::Run => mode = Mode::Once,
            "check-config" if mode == Mode::Run => mode = Mode::CheckConfig,
            "--help" | "-h" => mode = Mode::Help,
            "--version" | "-V" => mode = Mode::Version,
            other => {
                if let Some(path) = other.strip_prefix("--config=") {
                    config = Some(PathBuf::from(path));
                } else {
                    return Err(format!("unexpected argument {other:?}"));
                }
            }
        }
    }
    Ok((mode, config))
}

fn main() -> ExitCode {
    let (mode, config_path) = match parse_args(std::env::args().skip(1)) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("meshwatch-agent: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match mode {
        Mode::Help => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Mode::Version => {
            println!("meshwatch-agent {}", agent::AGENT_VERSION);
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let settings = match AgentSettings::load(config_path.as_deref(), &|k| std::env::var(k).ok()) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("meshwatch-agent: configuration error: {e}");
            return ExitCode::from(2);
        }
    };
    if mode == Mode::CheckConfig {
        println!(
            "configuration OK ({})\n{}",
            config_path
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| format!("{DEFAULT_CONFIG_PATH} and the environment")),
            settings.describe()
        );
        return ExitCode::SUCCESS;
    }

    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("meshwatch-agent: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        if mode == Mode::Once {
            let report = agent::runner::once(&settings).await?;
            println!("{}", serde_json::to_string_pretty(&report)?);
            return Ok(());
        }
        tracing::info!(
            version = agent::AGENT_VERSION,
            panel = %settings.panel_url,
            "meshwatch-agent starting"
        );
        agent::run(
            settings,
            Arc::new(AgentCounters::default()),
            shutdown_signal(),
        )
        .await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("meshwatch-agent: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// SIGTERM (systemd's stop) or Ctrl-C.
async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
    tracing::info!("stopping: sending the last report");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<(Mode, Option<PathBuf>), String> {
        parse_args(args.iter().map(|s| s.to_string()))
    }

    #[test]
    fn the_command_line() {
        assert_eq!(parse(&[]), Ok((Mode::Run, None)));
        assert_eq!(
            parse(&["--config", "/x.toml", "--once"]),
            Ok((Mode::Once, Some(PathBuf::from("/x.toml"))))
        );
        assert_eq!(
            parse(&["check-config", "--config=/y.toml"]),
            Ok((Mode::CheckConfig, Some(PathBuf::from("/y.toml"))))
        );
        assert!(parse(&["--config"]).is_err());
        assert!(parse(&["--bogus"]).is_err());
        assert!(parse(&["--once", "check-config"]).is_err());
    }
}
