//! The agent's local checks: is the traffic listener alive (a TCP connect
//! succeeds) and is the VPN service running (as configured).

use super::config::ServiceCheck;
use meshwatch::evidence::SelfCheck;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tokio::process::Command;

const LISTENER_TIMEOUT: Duration = Duration::from_secs(3);
const SERVICE_TIMEOUT: Duration = Duration::from_secs(10);

pub async fn run(listener: SocketAddr, service: &ServiceCheck) -> SelfCheck {
    let (listener_result, service_result) =
        tokio::join!(check_listener(listener), check_service(service));
    let listener_ok = listener_result.is_ok();
    let service_ok = service_result.is_ok();
    let problems: Vec<String> = [listener_result.err(), service_result.err()]
        .into_iter()
        .flatten()
        .collect();
    SelfCheck {
        listener_ok,
        service_ok,
        detail: (!problems.is_empty()).then(|| problems.join("; ")),
    }
}

async fn check_listener(listener: SocketAddr) -> Result<(), String> {
    match tokio::time::timeout(LISTENER_TIMEOUT, tokio::net::TcpStream::connect(listener)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(format!("listener {listener}: {e}")),
        Err(_) => Err(format!(
            "listener {listener}: no answer within {} s",
            LISTENER_TIMEOUT.as_secs()
        )),
    }
}

async fn check_service(service: &ServiceCheck) -> Result<(), String> {
    match service {
        ServiceCheck::SystemdUnit(unit) => {
            let argv = ["systemctl", "is-active", "--quiet", unit.as_str()];
            exits_zero(&argv)
                .await
                .map_err(|why| format!("service {unit}: {why}"))
        }
        ServiceCheck::Command(argv) => exits_zero(argv)
            .await
            .map_err(|why| format!("service check {argv:?}: {why}")),
        ServiceCheck::Process(name) => {
            let wanted = name.clone();
            let found = tokio::task::spawn_blocking(move || process_runs(&wanted))
                .await
                .unwrap_or(false);
            found
                .then_some(())
                .ok_or_else(|| format!("service: no process named {name:?}"))
        }
        ServiceCheck::Embedded(running) => running
            .load(Ordering::Relaxed)
            .then_some(())
            .ok_or_else(|| "service: stopped".to_string()),
    }
}

async fn exits_zero<S: AsRef<std::ffi::OsStr>>(argv: &[S]) -> Result<(), String> {
    let Some((program, args)) = argv.split_first() else {
        return Err("empty command".into());
    };
    let child = Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .status();
    match tokio::time::timeout(SERVICE_TIMEOUT, child).await {
        Ok(Ok(status)) if status.success() => Ok(()),
        Ok(Ok(status)) => Err(format!("exited with {status}")),
        Ok(Err(e)) => Err(format!("cannot run: {e}")),
        Err(_) => Err(format!("no answer within {} s", SERVICE_TIMEOUT.as_secs())),
    }
}

fn process_runs(name: &str) -> bool {
    let Ok(processes) = procfs::process::all_processes() else {
        return false;
    };
    processes
        .flatten()
        .any(|p| p.stat().is_ok_and(|stat| stat.comm == name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    #[tokio::test]
    async fn a_live_listener_and_a_passing_command_are_ok() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("addr");
        let check = run(address, &ServiceCheck::Command(vec!["true".into()])).await;
        assert!(check.is_ok(), "{check:?}");
        assert_eq!(check.detail, None);
    }

    #[tokio::test]
    async fn a_dead_listener_and_a_failing_service_are_reported_separately() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("addr");
        drop(listener);
        let check = run(address, &ServiceCheck::Command(vec!["true".into()])).await;
        assert!(!check.listener_ok && check.service_ok, "{check:?}");

        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("addr");
        let check = run(address, &ServiceCheck::Command(vec!["false".into()])).await;
        assert!(check.listener_ok && !check.service_ok, "{check:?}");
        assert!(check.detail.expect("detail").contains("exited"));
    }

    #[tokio::test]
    async fn process_and_embedded_checks() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("addr");
        let me = procfs::process::Process::myself()
            .and_then(|p| p.stat())
            .expect("own stat")
            .comm;
        assert!(run(address, &ServiceCheck::Process(me)).await.service_ok);
        let missing = ServiceCheck::Process("no-such-proc".into());
        assert!(!run(address, &missing).await.service_ok);
        let flag = Arc::new(AtomicBool::new(true));
        let embedded = ServiceCheck::Embedded(flag.clone());
        assert!(run(address, &embedded).await.service_ok);
        flag.store(false, Ordering::Relaxed);
        assert!(!run(address, &embedded).await.service_ok);
        let missing_program = ServiceCheck::Command(vec!["/nonexistent/check".into()]);
        let check = run(address, &missing_program).await;
        assert!(check.detail.expect("detail").contains("cannot run"));
    }
}
