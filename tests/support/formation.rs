//! A pg_auto_failover formation on 127.0.0.1 (a monitor, a primary and its synchronous
//! standby), made by running docs/DEPLOY.md's set-up block as written, and torn down when
//! dropped. Needs `pg_autoctl` (Debian `pg-auto-failover-cli` and
//! `postgresql-15-auto-failover`, which `scripts/test` installs); without it the tests that
//! use it fail.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const DEPLOY: &str = include_str!("../../docs/DEPLOY.md");

/// The shell block of DEPLOY.md that sets up the formation.
fn setup_block() -> &'static str {
    DEPLOY
        .split("```sh\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap())
        .find(|block| block.contains("pg_autoctl create monitor"))
        .expect("docs/DEPLOY.md has the formation's set-up block")
}

/// A node as the monitor sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeState {
    pub name: String,
    pub port: u16,
    pub reported: String,
    pub assigned: String,
}

pub struct Formation {
    dir: tempfile::TempDir,
    pub monitor_port: u16,
    /// node1's and node2's ports.
    pub node_ports: [u16; 2],
    /// Keepers started by `restart_node`, reaped when the formation is dropped.
    keepers: Mutex<Vec<Child>>,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// The pids of the processes whose command line matches `pattern` (pgrep -f).
fn pids(pattern: &str) -> Vec<String> {
    let out = Command::new("pgrep").args(["-f", pattern]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split_whitespace().map(str::to_string).collect()
}

fn children(pid: &str) -> Vec<String> {
    let out = Command::new("pgrep").args(["-P", pid]).output().unwrap();
    String::from_utf8_lossy(&out.stdout).split_whitespace().map(str::to_string).collect()
}

fn parent_of(pid: &str) -> Option<String> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) state ppid ...: the command may hold spaces and parentheses.
    stat.rsplit_once(')')?.1.split_whitespace().nth(1).map(str::to_string)
}

fn command_of(pid: &str) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|raw| String::from_utf8_lossy(&raw).replace('\0', " "))
        .unwrap_or_default()
}

/// Kills a process and all its descendants: each stopped first (so that none starts
/// anything more, and a stopped one is not left behind), then killed. Returns their pids.
fn kill_tree(pid: &str) -> Vec<String> {
    let mut tree = vec![pid.to_string()];
    let mut next = 0;
    while next < tree.len() {
        let _ = Command::new("kill").args(["-STOP", &tree[next]]).stderr(Stdio::null()).status();
        tree.extend(children(&tree[next]));
        next += 1;
    }
    for pid in &tree {
        let _ = Command::new("kill").args(["-KILL", pid]).stderr(Stdio::null()).status();
    }
    tree
}

fn is_root() -> bool {
    let out = Command::new("id").arg("-u").output().expect("id -u");
    String::from_utf8_lossy(&out.stdout).trim() == "0"
}

impl Formation {
    /// Brings the formation up; returns once the primary has its synchronous standby.
    pub fn up() -> Formation {
        let dir = tempfile::Builder::new().prefix("receipts-ha").tempdir().unwrap();
        let formation = Formation {
            dir,
            monitor_port: free_port(),
            node_ports: [free_port(), free_port()],
            keepers: Mutex::default(),
        };
        std::fs::create_dir_all(formation.path("run")).unwrap();
        if is_root() {
            // pg_autoctl refuses to run as root: the formation belongs to postgres.
            let status =
                Command::new("chown").args(["-R", "postgres"]).arg(formation.dir.path()).status().unwrap();
            assert!(status.success(), "chown the formation's directory to postgres");
        }
        let script = formation.dir.path().join("formation.sh");
        std::fs::write(&script, setup_block()).unwrap();
        let started = Instant::now();
        // Bounded: the block waits for the formation in loops of its own.
        let out = formation
            .as_postgres("timeout")
            .args(["180", "bash", "-euo", "pipefail"])
            .arg(&script)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("run DEPLOY.md's formation block: {e}"));
        assert!(
            out.status.success(),
            "DEPLOY.md's formation block failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        eprintln!("formation up in {:.1} s", started.elapsed().as_secs_f64());
        for node in ["node1", "node2"] {
            std::fs::copy(formation.config_of(node), formation.path(&format!("{node}.cfg"))).unwrap();
        }
        formation
    }

    /// A keeper's configuration file, where pg_autoctl keeps it for the node's data directory.
    fn config_of(&self, node: &str) -> PathBuf {
        let pgdata = self.path(node);
        self.path("config/pg_autoctl").join(pgdata.strip_prefix("/").unwrap()).join("pg_autoctl.cfg")
    }

    /// pg_autoctl rewrites its configuration file in place: a keeper killed in the middle
    /// leaves it cut off, and the keeper started again stops at once ("Unrecognized
    /// configuration file"). A machine lost that way comes back with the file from its
    /// backup: here, the copy taken when the formation came up (what it holds does not change
    /// while the formation runs: the node's name, ports, monitor and data directory).
    fn mend_config(&self, node: &str) {
        let config = self.config_of(node);
        let whole = std::fs::read_to_string(&config).is_ok_and(|text| text.contains("[pg_autoctl]"));
        if !whole {
            eprintln!("{node}'s pg_autoctl.cfg was cut off by the kill: put back from the copy");
            std::fs::copy(self.path(&format!("{node}.cfg")), &config).unwrap();
            if is_root() {
                let status = Command::new("chown").arg("postgres").arg(&config).status().unwrap();
                assert!(status.success(), "chown {node}'s pg_autoctl.cfg to postgres");
            }
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A command run as the formation's owner, with its environment.
    fn as_postgres(&self, program: &str) -> Command {
        let bindir = std::env::var("RECEIPTS_TEST_PG_BINDIR")
            .expect("RECEIPTS_TEST_PG_BINDIR is not set: run the suite with scripts/test");
        let mut cmd = if is_root() {
            let mut cmd = Command::new("runuser");
            cmd.args(["-u", "postgres", "--", program]);
            cmd
        } else {
            Command::new(program)
        };
        let home = self.dir.path();
        cmd.current_dir(home)
            .env("PATH", format!("{bindir}:/usr/sbin:/usr/bin:/sbin:/bin"))
            .env("HA", home)
            .env("HOST", "127.0.0.1")
            .env("MONITOR_PORT", self.monitor_port.to_string())
            .env("NODE1_PORT", self.node_ports[0].to_string())
            .env("NODE2_PORT", self.node_ports[1].to_string())
            // pg_autoctl keeps its state and pid files under these.
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_RUNTIME_DIR", home.join("run"));
        cmd
    }

    /// The URL of the receipts database, the libpq multi-host form the program is given.
    pub fn url(&self) -> String {
        let [a, b] = self.node_ports;
        format!(
            "postgresql://postgres@127.0.0.1:{a},127.0.0.1:{b}/receipts?target_session_attrs=read-write&connect_timeout=2"
        )
    }

    /// The URL of one node, whatever its role.
    pub fn node_url(&self, port: u16) -> String {
        format!("postgresql://postgres@127.0.0.1:{port}/receipts?connect_timeout=2")
    }

    /// What the monitor says of each node.
    pub fn state(&self) -> Vec<NodeState> {
        let out = self
            .as_postgres("pg_autoctl")
            .args(["show", "state", "--pgdata"])
            .arg(self.path("monitor"))
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                let [name, _, host_port, _, _, reported, assigned] = cells.as_slice() else { return None };
                let port = host_port.rsplit_once(':')?.1.parse().ok()?;
                Some(NodeState {
                    name: name.to_string(),
                    port,
                    reported: reported.to_string(),
                    assigned: assigned.to_string(),
                })
            })
            .collect()
    }

    /// Polls the monitor until `ready` holds, for at most `limit`.
    pub fn wait_for(
        &self,
        what: &str,
        limit: Duration,
        ready: impl Fn(&[NodeState]) -> bool,
    ) -> Vec<NodeState> {
        let started = Instant::now();
        loop {
            let state = self.state();
            if ready(&state) {
                return state;
            }
            assert!(
                started.elapsed() < limit,
                "the formation did not reach {what} within {limit:?}: {state:?}\n{}",
                self.log_tails()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The last lines of each keeper's log: what a formation that did not settle was doing.
    fn log_tails(&self) -> String {
        ["monitor", "node1", "node2"]
            .iter()
            .map(|node| {
                let log = std::fs::read_to_string(self.path(&format!("{node}.log"))).unwrap_or_default();
                let lines: Vec<&str> = log.lines().collect();
                format!("--- {node}.log\n{}", lines[lines.len().saturating_sub(25)..].join("\n"))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The node that is primary with a synchronous standby beside it, once there is one.
    pub fn settled_primary(&self, limit: Duration) -> NodeState {
        let state = self.wait_for("a primary and a secondary", limit, |nodes| {
            nodes.iter().any(|n| n.reported == "primary" && n.assigned == "primary")
                && nodes.iter().any(|n| n.reported == "secondary" && n.assigned == "secondary")
        });
        state.into_iter().find(|n| n.reported == "primary").unwrap()
    }

    /// Kills a node as when its machine is lost: its pg_autoctl keeper and its PostgreSQL,
    /// with SIGKILL. (A postmaster killed alone is restarted by its keeper, often before the
    /// monitor calls the node unhealthy, and then nothing fails over.) Until neither is left:
    /// a keeper's service may be starting PostgreSQL anew at that very moment.
    pub fn kill_node(&self, node: &str) {
        let keeper = format!("pg_autoctl run --pgdata {}", self.path(node).display());
        let mut killed = Vec::new();
        for _ in 0..100 {
            let mut found = pids(&keeper);
            for postmaster in pids(&self.postmaster_pattern(node)) {
                // The keeper's service that starts PostgreSQL, as well.
                if let Some(parent) =
                    parent_of(&postmaster).filter(|p| command_of(p).starts_with("pg_autoctl"))
                {
                    found.push(parent);
                }
                found.push(postmaster);
            }
            if found.is_empty() {
                return self.wait_gone(&killed);
            }
            for pid in found {
                killed.extend(kill_tree(&pid));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("{node} could not be killed");
    }

    /// Waits until killed processes are gone for good, reaped: until then a keeper or a
    /// postmaster started anew takes the dead one's pid file for a live instance and exits.
    /// The keepers this formation started are its own children, reaped here.
    fn wait_gone(&self, killed: &[String]) {
        let started = Instant::now();
        loop {
            for keeper in self.keepers.lock().unwrap().iter_mut() {
                let _ = keeper.try_wait();
            }
            let left: Vec<&String> =
                killed.iter().filter(|pid| Path::new(&format!("/proc/{pid}")).exists()).collect();
            if left.is_empty() {
                return;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "killed, never reaped: {left:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Kills only a node's PostgreSQL (its postmaster and every server process, SIGKILL), as
    /// when the database server crashes on a machine that stays up: a keeper left alive
    /// starts PostgreSQL again, which replays its log from its own disk.
    pub fn kill_postgres(&self, node: &str) {
        let killed: Vec<String> = pids(&self.postmaster_pattern(node))
            .iter()
            .flat_map(|postmaster| kill_tree(postmaster))
            .collect();
        self.wait_gone(&killed);
    }

    /// A pgrep pattern for a node's postmaster: found by its command line, not its pid file,
    /// which a postmaster being started has not written yet.
    fn postmaster_pattern(&self, node: &str) -> String {
        format!("postgres -D {}( |$)", self.path(node).display())
    }

    /// Stops (SIGSTOP) or resumes (SIGCONT) replication between two nodes: the primary's
    /// WAL sender and the standby's WAL receiver. While they are stopped, the primary's
    /// commits are on its own disk and nowhere else (not even in a socket's buffer on the
    /// way), waiting for the standby's confirmation; and the standby does not reconnect to
    /// a primary restarted meanwhile. Returns whether both were there to signal.
    pub fn hold_replication(&self, primary: &str, standby: &str, hold: bool) -> bool {
        let processes = |node: &str, role: &str| -> Vec<String> {
            pids(&self.postmaster_pattern(node))
                .iter()
                .flat_map(|postmaster| children(postmaster))
                .filter(|child| command_of(child).contains(role))
                .collect()
        };
        let (senders, receivers) = (processes(primary, "walsender"), processes(standby, "walreceiver"));
        for pid in senders.iter().chain(&receivers) {
            let signal = if hold { "-STOP" } else { "-CONT" };
            let _ = Command::new("kill").args([signal, pid]).stderr(Stdio::null()).status();
        }
        !senders.is_empty() && !receivers.is_empty()
    }

    /// One value of a query run by psql on a node, or None when the node does not answer.
    pub fn query(&self, port: u16, sql: &str) -> Option<String> {
        let out = self
            .as_postgres("psql")
            .args([
                "-X",
                "-A",
                "-t",
                "-q",
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-d",
                "receipts",
                "-c",
                sql,
            ])
            .env("PGCONNECT_TIMEOUT", "2")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// How many sessions on a node wait for a synchronous standby's confirmation of their
    /// commit (0 when the node does not answer).
    pub fn waiting_for_standby(&self, port: u16) -> usize {
        self.query(port, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// Starts a killed node's keeper again (its service, in production): it rejoins the
    /// formation as a standby.
    pub fn restart_node(&self, node: &str) {
        self.mend_config(node);
        let log = std::fs::OpenOptions::new().append(true).open(self.path(&format!("{node}.log"))).unwrap();
        let keeper = self
            .as_postgres("pg_autoctl")
            .args(["run", "--pgdata"])
            .arg(self.path(node))
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("pg_autoctl run {node}: {e}"));
        self.keepers.lock().unwrap().push(keeper);
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for Formation {
    fn drop(&mut self) {
        for node in ["node2", "node1", "monitor"] {
            let _ = self
                .as_postgres("pg_autoctl")
                .args(["stop", "--immediate", "--pgdata"])
                .arg(self.path(node))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            // Whatever did not stop (a keeper that was mid-restart).
            self.kill_node(node);
        }
        for mut keeper in self.keepers.lock().unwrap().drain(..) {
            let _ = keeper.wait();
        }
    }
}
