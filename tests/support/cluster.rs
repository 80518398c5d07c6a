//! A PostgreSQL cluster and a PgBouncer in front of it that belong to one test, which may
//! stop them: for what happens when the server goes away.

use std::path::{Path, PathBuf};
use std::process::Command;

pub struct Cluster {
    dir: tempfile::TempDir,
    bindir: PathBuf,
    pub port: u16,
    bouncer: Option<u16>,
}

/// A free TCP port on loopback, asked of the kernel.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// A command run as the owner of the cluster's files (`postgres` when we are root), on the
/// real clock.
fn as_owner(program: &Path) -> Command {
    let mut cmd = if is_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--"]).arg(program);
        cmd
    } else {
        Command::new(program)
    };
    super::cli::real_clock(&mut cmd);
    cmd
}

pub fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0\n")).unwrap_or(false)
}

fn run(cmd: &mut Command, what: &str) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
}

impl Cluster {
    /// A new cluster, started (RECEIPTS_TEST_PG_BINDIR, set by scripts/test).
    pub fn start() -> Cluster {
        let bindir = PathBuf::from(std::env::var("RECEIPTS_TEST_PG_BINDIR").unwrap_or_else(|_| {
            panic!("RECEIPTS_TEST_PG_BINDIR is not set: run the suite with scripts/test")
        }));
        let dir = tempfile::tempdir().expect("a directory for the cluster");
        if is_root() {
            run(Command::new("chown").args(["postgres:"]).arg(dir.path()), "chown the cluster directory");
        }
        let data = dir.path().join("data");
        run(
            as_owner(&bindir.join("initdb")).arg("-D").arg(&data).args([
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "--encoding=UTF8",
                "--locale=C.UTF-8",
            ]),
            "initdb",
        );
        let port = free_port();
        let conf = format!(
            "listen_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{}'\nfsync = off\n",
            dir.path().display()
        );
        let mut settings = std::fs::read_to_string(data.join("postgresql.conf")).expect("postgresql.conf");
        settings.push_str(&conf);
        std::fs::write(data.join("postgresql.conf"), settings).expect("write postgresql.conf");
        let cluster = Cluster { dir, bindir, port, bouncer: None };
        cluster.pg_ctl(&["-w", "start", "-l"], Some(&cluster.dir.path().join("postgres.log")));
        cluster
    }

    fn pg_ctl(&self, args: &[&str], log: Option<&Path>) {
        let mut cmd = as_owner(&self.bindir.join("pg_ctl"));
        cmd.arg("-D").arg(self.dir.path().join("data")).args(args);
        if let Some(log) = log {
            cmd.arg(log);
        }
        run(&mut cmd, &format!("pg_ctl {args:?}"));
    }

    /// The server's URL for `database`.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Starts a PgBouncer in transaction-pooling mode in front of the server; returns the
    /// URL of `database` through it.
    pub fn start_pgbouncer(&mut self, database: &str) -> String {
        let bin = std::env::var("RECEIPTS_TEST_PGBOUNCER_BIN").unwrap_or_else(|_| "pgbouncer".into());
        let port = free_port();
        let dir = self.dir.path();
        let ini = dir.join("pgbouncer.ini");
        std::fs::write(
            &ini,
            format!(
                "[databases]\n* = host=127.0.0.1 port={}\n[pgbouncer]\nlisten_addr = 127.0.0.1\n\
                 listen_port = {port}\nunix_socket_dir =\nauth_type = trust\nauth_file = {}\n\
                 pool_mode = transaction\npidfile = {}\nlogfile = {}\n",
                self.port,
                dir.join("userlist.txt").display(),
                dir.join("pgbouncer.pid").display(),
                dir.join("pgbouncer.log").display(),
            ),
        )
        .expect("pgbouncer.ini");
        std::fs::write(dir.join("userlist.txt"), "\"postgres\" \"\"\n").expect("userlist.txt");
        if is_root() {
            run(Command::new("chown").args(["-R", "postgres:"]).arg(dir), "chown the PgBouncer files");
        }
        run(as_owner(Path::new(&bin)).arg("-d").arg(&ini), "start PgBouncer");
        self.bouncer = Some(port);
        // It forks into the background before it listens: wait until it takes connections.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(std::time::Instant::now() < deadline, "PgBouncer did not start listening");
            std::thread::yield_now();
        }
        format!("postgres://postgres@127.0.0.1:{port}/{database}")
    }

    /// Stops the server (PgBouncer, if any, stays up).
    pub fn stop_server(&self) {
        self.pg_ctl(&["-m", "fast", "-w", "stop"], None);
    }

    /// Stops the server at once, as a crash would: clients lose their connections.
    pub fn stop_server_immediately(&self) {
        self.pg_ctl(&["-m", "immediate", "-w", "stop"], None);
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.bouncer.is_some() {
            if let Ok(pid) = std::fs::read_to_string(self.dir.path().join("pgbouncer.pid")) {
                let _ = Command::new("kill").arg(pid.trim()).status();
            }
        }
        let _ = as_owner(&self.bindir.join("pg_ctl"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "stop"])
            .output();
    }
}
