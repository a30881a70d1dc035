//! The bounded queue of reports not yet acknowledged by the panel.
//!
//! Every report is written to the spool directory (one file per report,
//! written to a temporary name, synced, renamed, and the directory synced,
//! so neither a crash nor a power cut leaves half a report or loses a
//! queued one) before the first attempt to send it, and removed once the
//! panel acknowledges it or refuses it for good. A restarted agent resends
//! what the spool holds with the same `report_id`s, so the panel applies
//! each once.
//!
//! When the queue is full the **oldest** report is dropped: verdicts depend
//! on current evidence, and the panel ignores a pair's probe results older
//! than ones it already applied, so old reports are worth least.

use meshwatch::agent_api::AgentReport;
use std::collections::VecDeque;
use std::io;
use std::path::{Path, PathBuf};

pub struct Outbox {
    queue: VecDeque<Queued>,
    bound: usize,
    spool: Option<PathBuf>,
    next_seq: u64,
    dropped_oldest: u64,
}

struct Queued {
    seq: u64,
    report: AgentReport,
}

impl Outbox {
    /// Opens the queue, reloading what a previous run left in `spool`.
    /// Unreadable spool files are renamed `*.bad` and skipped.
    pub fn open(bound: usize, spool: Option<PathBuf>) -> io::Result<Self> {
        let mut outbox = Self {
            queue: VecDeque::new(),
            bound: bound.max(1),
            spool,
            next_seq: 0,
            dropped_oldest: 0,
        };
        if let Some(dir) = outbox.spool.clone() {
            std::fs::create_dir_all(&dir)?;
            let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(&dir)?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter_map(|path| spool_seq(&path).map(|seq| (seq, path)))
                .collect();
            files.sort();
            for (seq, path) in files {
                let parsed = std::fs::read(&path)
                    .ok()
                    .and_then(|bytes| serde_json::from_slice::<AgentReport>(&bytes).ok());
                match parsed {
                    Some(report) => {
                        outbox.next_seq = outbox.next_seq.max(seq + 1);
                        outbox.queue.push_back(Queued { seq, report });
                    }
                    None => {
                        tracing::warn!(file = %path.display(), "unreadable spooled report set aside");
                        let _ = std::fs::rename(&path, path.with_extension("bad"));
                    }
                }
            }
            while outbox.queue.len() > outbox.bound {
                outbox.drop_oldest()?;
            }
        }
        Ok(outbox)
    }

    /// Queues a report (spooling it first); returns the report dropped to
    /// make room, if the queue was full.
    pub fn push(&mut self, report: AgentReport) -> io::Result<Option<AgentReport>> {
        let seq = self.next_seq;
        if let Some(dir) = &self.spool {
            write_atomically(&dir.join(file_name(seq)), &serde_json::to_vec(&report)?)?;
        }
        self.next_seq += 1;
        self.queue.push_back(Queued { seq, report });
        if self.queue.len() > self.bound {
            return self.drop_oldest();
        }
        Ok(None)
    }

    pub fn front(&self) -> Option<&AgentReport> {
        self.queue.front().map(|q| &q.report)
    }

    /// Removes the front report (acknowledged, or refused for good).
    pub fn pop_front(&mut self) -> io::Result<Option<AgentReport>> {
        let Some(queued) = self.queue.pop_front() else {
            return Ok(None);
        };
        self.unspool(queued.seq)?;
        Ok(Some(queued.report))
    }

    pub fn len(&self) -> usize {
        self.queue.len()
    }

    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// Reports dropped because the queue was full.
    pub fn dropped_oldest(&self) -> u64 {
        self.dropped_oldest
    }

    fn drop_oldest(&mut self) -> io::Result<Option<AgentReport>> {
        let dropped = self.pop_front()?;
        if let Some(report) = &dropped {
            self.dropped_oldest += 1;
            tracing::warn!(
                report_id = %report.report_id,
                bound = self.bound,
                "report queue full: the oldest report is dropped"
            );
        }
        Ok(dropped)
    }

    /// Not synced: a deletion lost to a power cut only resends a report
    /// with its old `report_id`, which the panel applies once.
    fn unspool(&self, seq: u64) -> io::Result<()> {
        if let Some(dir) = &self.spool {
            match std::fs::remove_file(dir.join(file_name(seq))) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
        Ok(())
    }
}

fn file_name(seq: u64) -> String {
    format!("report-{seq:020}.json")
}

fn spool_seq(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("report-")?
        .strip_suffix(".json")?
        .parse()
        .ok()
}

/// Writes `path` whole or not at all, durably. A rename alone is atomic
/// but not durable: after a power cut the file may be empty (its data was
/// never flushed) or missing (the rename lived only in the directory's
/// cache). So the data is synced before the rename and the directory
/// after it; only then does the report count as queued.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)?;
    sync_directory_of(path)
}

/// Makes the directory entries of `path`'s directory durable (a rename or
/// a new file in it). Unix only: elsewhere a directory cannot be opened
/// like a file.
#[cfg(unix)]
fn sync_directory_of(path: &Path) -> io::Result<()> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => std::fs::File::open(dir)?.sync_all(),
        _ => std::fs::File::open(".")?.sync_all(),
    }
}

#[cfg(not(unix))]
fn sync_directory_of(_path: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshwatch::evidence::SelfCheck;

    fn report(id: &str) -> AgentReport {
        AgentReport {
            report_id: id.into(),
            agent_version: "test".into(),
            sent_at: chrono::Utc::now(),
            self_check: SelfCheck {
                listener_ok: true,
                service_ok: true,
                detail: None,
            },
            metrics: Default::default(),
            probes: vec![],
        }
    }

    fn ids(outbox: &Outbox) -> Vec<String> {
        outbox
            .queue
            .iter()
            .map(|q| q.report.report_id.clone())
            .collect()
    }

    #[test]
    fn a_full_queue_drops_the_oldest_report() {
        let mut outbox = Outbox::open(3, None).expect("open");
        for id in ["a", "b", "c"] {
            assert!(outbox.push(report(id)).expect("push").is_none());
        }
        let dropped = outbox.push(report("d")).expect("push");
        assert_eq!(dropped.map(|r| r.report_id).as_deref(), Some("a"));
        assert_eq!(ids(&outbox), ["b", "c", "d"]);
        assert_eq!(outbox.dropped_oldest(), 1);
        assert_eq!(outbox.front().map(|r| r.report_id.as_str()), Some("b"));
    }

    #[test]
    fn the_spool_survives_a_restart_in_order_and_forgets_sent_reports() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spool = Some(dir.path().join("spool"));
        {
            let mut outbox = Outbox::open(10, spool.clone()).expect("open");
            for id in ["a", "b", "c"] {
                outbox.push(report(id)).expect("push");
            }
            outbox.pop_front().expect("pop");
        }
        let mut reopened = Outbox::open(10, spool.clone()).expect("reopen");
        assert_eq!(ids(&reopened), ["b", "c"]);
        reopened.push(report("d")).expect("push after reopen");
        let again = Outbox::open(10, spool).expect("reopen again");
        assert_eq!(ids(&again), ["b", "c", "d"]);
    }

    #[test]
    fn a_smaller_bound_after_restart_keeps_the_newest() {
        let dir = tempfile::tempdir().expect("tempdir");
        let spool = Some(dir.path().to_path_buf());
        let mut outbox = Outbox::open(10, spool.clone()).expect("open");
        for id in ["a", "b", "c", "d"] {
            outbox.push(report(id)).expect("push");
        }
        let reopened = Outbox::open(2, spool).expect("reopen");
        assert_eq!(ids(&reopened), ["c", "d"]);
        let files = std::fs::read_dir(dir.path()).expect("dir").count();
        assert_eq!(files, 2);
    }

    #[test]
    fn a_corrupt_spool_file_is_set_aside_not_fatal() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join(file_name(0)), b"{half a repo").expect("write");
        let mut outbox = Outbox::open(5, Some(dir.path().to_path_buf())).expect("open");
        assert!(outbox.is_empty());
        assert!(dir.path().join("report-00000000000000000000.bad").exists());
        outbox.push(report("x")).expect("push");
        assert_eq!(outbox.len(), 1);
    }
}
