//! SPEC section 16's guarantee on a real pg_auto_failover formation (`support::formation`,
//! set up by docs/DEPLOY.md's block as written): `receipts mint` processes of several
//! stringers run through the multi-host URL with `--retry-for` while the primary node (its
//! PostgreSQL postmaster and its keeper) is killed with SIGKILL, twice (failover, then
//! failback after the old primary rejoined). Afterwards no
//! committed number is lost, none is duplicated, every number a process printed is stored
//! with its order, and no process reported a mint that is not stored.
//!
//! And the doubt that follows a crash (issue: a number printed after a crash must survive
//! the failover that follows): a primary's commits that only its own disk holds, replayed
//! when its PostgreSQL restarts, are never printed by the re-run that resolves the doubt
//! until a standby has them, so the failover that may follow takes no printed number back.

#[path = "../support/mod.rs"]
mod support;

use std::collections::{BTreeMap, HashMap};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};
use support::formation::{Formation, NodeState};

const STRINGERS: usize = 4;
const ORDERS_PER_STRINGER: usize = 3000;
const MINTERS: usize = 4;
/// Mints between two events of the storm.
const BETWEEN: usize = 100;

fn receipts(url: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_receipts"));
    cmd.env_clear().env("DATABASE_URL", url).env("TZ", "UTC");
    cmd
}

fn ok(url: &str, args: &[&str]) -> String {
    let out = receipts(url).args(args).output().unwrap();
    assert!(out.status.success(), "receipts {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn json(url: &str, args: &[&str]) -> serde_json::Value {
    serde_json::from_str(&ok(url, args)).unwrap()
}

/// One `receipts mint` process of the storm.
struct Minted {
    order: i64,
    code: i32,
    stdout: String,
    stderr: String,
    started: Instant,
    finished: Instant,
}

fn mint(url: &str, order: i64, retry_for: &str) -> Minted {
    let started = Instant::now();
    let out = receipts(url)
        .env("RECEIPTS_RETRY_FOR", retry_for)
        .args(["mint", "--order", &order.to_string()])
        .output()
        .unwrap();
    Minted {
        order,
        code: out.status.code().expect("exited, not killed"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
        started,
        finished: Instant::now(),
    }
}

/// Collects the storm's results until `count` more mints begun after `since` succeeded.
fn successes(results: &mut Vec<Minted>, from: &mpsc::Receiver<Minted>, count: usize, since: Instant) {
    let mut seen = 0;
    while seen < count {
        let minted = from.recv_timeout(Duration::from_secs(120)).expect("the storm goes on");
        if minted.code == 0 && minted.started > since {
            seen += 1;
        }
        results.push(minted);
    }
}

/// A failover the storm went through: when the primary was killed, when it was replaced.
struct Failover {
    killed: NodeState,
    at: Instant,
    promoted_after: Duration,
}

/// Kills the primary node (`Formation::kill_node`), runs `meanwhile` at once (the standby is
/// not promoted yet), and waits for the promotion.
fn fail_over(formation: &Formation, meanwhile: impl FnOnce()) -> Failover {
    let primary = formation.settled_primary(Duration::from_secs(120));
    formation.kill_node(&primary.name);
    let at = Instant::now();
    meanwhile();
    formation.wait_for("the standby promoted", Duration::from_secs(120), |nodes| {
        nodes
            .iter()
            .any(|n| n.name != primary.name && matches!(n.reported.as_str(), "primary" | "wait_primary"))
    });
    Failover { killed: primary, at, promoted_after: at.elapsed() }
}

/// One formation at a time: two would share the machine's two cores, and the monitor's
/// timings are tuned for a machine that answers.
static ONE_FORMATION: Mutex<()> = Mutex::new(());

fn one_formation() -> std::sync::MutexGuard<'static, ()> {
    ONE_FORMATION.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[test]
fn a_primary_killed_mid_storm_loses_no_number_and_duplicates_none() {
    let _alone = one_formation();
    let formation = Formation::up();
    let url = formation.url();
    let mut orders = open_orders(&formation);
    let (probe_now, probe_later) = (orders.pop().unwrap(), orders.pop().unwrap());
    let storm = Storm::start(&url, orders);
    let storm_started = storm.started;
    let mut results = Vec::new();

    successes(&mut results, &storm.results, BETWEEN, storm_started);
    // During the outage: without --retry-for a mint fails at once (69 or 75)...
    let first = fail_over(&formation, || {
        let probe = mint(&url, probe_now, "0");
        assert!(matches!(probe.code, 69 | 75), "{}: {} {}", probe.code, probe.stdout, probe.stderr);
        assert_eq!(probe.stdout, "");
    });
    // ...and with time to wait it succeeds once the standby is promoted.
    let later_url = url.clone();
    let waiting = thread::spawn(move || mint(&later_url, probe_later, "60"));
    successes(&mut results, &storm.results, BETWEEN, first.at);
    // The old primary comes back, rejoins as the standby, and then the new primary is lost.
    formation.restart_node(&first.killed.name);
    let second = fail_over(&formation, || ());
    successes(&mut results, &storm.results, BETWEEN, second.at);
    let mut results = storm.finish(results);
    let waited = waiting.join().unwrap();
    assert_eq!(waited.code, 0, "{}", waited.stderr);
    let storm = storm_started.elapsed();
    results.push(waited);

    // What the processes said.
    let mut printed: HashMap<i64, String> = HashMap::new();
    for minted in &results {
        if minted.code == 0 {
            let number = minted.stdout.trim().to_string();
            assert!(
                number.len() == 9 && number.as_bytes()[4] == b'-',
                "order {}: {:?}",
                minted.order,
                minted.stdout
            );
            assert!(
                printed.insert(minted.order, number).is_none(),
                "order {} minted by two processes",
                minted.order
            );
        } else {
            assert_eq!(
                minted.stdout, "",
                "order {}: a failed mint prints no number: {}",
                minted.order, minted.stderr
            );
        }
    }
    // What the new primary holds.
    let all = json(&url, &["order", "list", "--format", "json"]);
    let mut stored: HashMap<i64, (String, String)> = HashMap::new();
    let mut per_stringer: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for order in all.as_array().unwrap() {
        let Some(number) = order["receipt_number"].as_str() else { continue };
        let stringer = order["stringer"].as_str().unwrap().to_string();
        per_stringer.entry(stringer.clone()).or_default().push(number[5..].parse().unwrap());
        stored.insert(order["id"].as_i64().unwrap(), (stringer, number.to_string()));
    }
    for (order, number) in &printed {
        let (_, held) =
            stored.get(order).unwrap_or_else(|| panic!("order {order} was told {number}, but holds none"));
        assert_eq!(held, number, "order {order} was told {number}");
    }
    for (stringer, seqs) in &mut per_stringer {
        seqs.sort_unstable();
        let n = seqs.len() as i64;
        assert_eq!(*seqs, (1..=n).collect::<Vec<_>>(), "stringer {stringer}: 1..{n}, no gap, no duplicate");
        let shown = json(&url, &["stringer", "show", stringer, "--format", "json"]);
        assert_eq!(shown["years"][0]["counter"].as_i64(), Some(n), "stringer {stringer}'s counter");
    }
    let journal = json(&url, &["journal", "--format", "json"]);
    let mut mints: HashMap<(String, String), usize> = HashMap::new();
    for event in journal.as_array().unwrap().iter().filter(|e| e["what"] == "mint") {
        let key =
            (event["stringer"].as_str().unwrap().to_string(), event["numbers"].as_str().unwrap().to_string());
        *mints.entry(key).or_default() += 1;
    }
    assert_eq!(mints.len(), stored.len(), "one mint event per number");
    assert!(mints.values().all(|&n| n == 1), "a number minted twice in the journal");
    for (stringer, number) in stored.values() {
        assert!(
            mints.contains_key(&(stringer.clone(), number.clone())),
            "{stringer} {number} has no mint event"
        );
    }
    let audit = receipts(&url).arg("audit").output().unwrap();
    assert!(audit.status.success(), "{}", String::from_utf8_lossy(&audit.stdout));

    // The figures of the run (docs/BENCHMARKS.md).
    let failed = results.iter().filter(|m| m.code != 0).count();
    let retried = results.iter().filter(|m| m.stderr.contains("on trying again")).count();
    let in_doubt = results.iter().filter(|m| m.stderr.contains("while committing")).count();
    eprintln!(
        "storm: {} mints in {:.1} s by {MINTERS} processes at a time ({failed} failed, {retried} retried, {in_doubt} in doubt)",
        printed.len(),
        storm.as_secs_f64()
    );
    for (name, failover) in [("failover", &first), ("failback", &second)] {
        let first_after = results
            .iter()
            .filter(|m| m.code == 0 && m.started > failover.at)
            .map(|m| m.finished - failover.at)
            .min()
            .expect("mints succeeded after the kill");
        eprintln!(
            "{name}: {} killed; standby promoted after {:.1} s; first mint begun after the kill returned after {:.1} s",
            failover.killed.name,
            failover.promoted_after.as_secs_f64(),
            first_after.as_secs_f64()
        );
    }
}

/// The formation's schema, and STRINGERS stringers' ORDERS_PER_STRINGER unnumbered orders
/// each from a V1 file, interleaved so that every minter mints for all of them (popped from
/// the end).
fn open_orders(formation: &Formation) -> Vec<i64> {
    let url = formation.url();
    ok(&url, &["db", "migrate"]);
    let csv = formation.dir().join("orders.csv");
    let mut rows = String::from("v1_id,kind,stringer,customer,price\n");
    for s in 1..=STRINGERS {
        for i in 1..=ORDERS_PER_STRINGER {
            rows.push_str(&format!("{i},client,s{s},Customer {i},35.50\n"));
        }
    }
    std::fs::write(&csv, rows).unwrap();
    ok(&url, &["migrate-v1", csv.to_str().unwrap(), "--timezone", "UTC"]);
    let listed = json(&url, &["order", "list", "--status", "open", "--format", "json"]);
    let mut orders: Vec<i64> = listed.as_array().unwrap().iter().map(|o| o["id"].as_i64().unwrap()).collect();
    assert_eq!(orders.len(), STRINGERS * ORDERS_PER_STRINGER);
    orders.sort_by_key(|id| (id % ORDERS_PER_STRINGER as i64, *id));
    orders.reverse();
    orders
}

/// MINTERS threads each running `receipts mint --retry-for 60` on the next order, one after
/// another, until stopped or out of orders; each process's outcome sent to `results`.
struct Storm {
    stop: Arc<AtomicBool>,
    results: mpsc::Receiver<Minted>,
    minters: Vec<thread::JoinHandle<()>>,
    started: Instant,
}

impl Storm {
    fn start(url: &str, orders: Vec<i64>) -> Storm {
        let queue = Arc::new(Mutex::new(orders));
        let stop = Arc::new(AtomicBool::new(false));
        let (sender, results) = mpsc::channel();
        let started = Instant::now();
        let minters = (0..MINTERS)
            .map(|_| {
                let (queue, stop, sender, url) =
                    (queue.clone(), stop.clone(), sender.clone(), url.to_string());
                thread::spawn(move || {
                    while !stop.load(Ordering::SeqCst) {
                        let Some(order) = queue.lock().unwrap().pop() else { break };
                        if sender.send(mint(&url, order, "60")).is_err() {
                            break;
                        }
                    }
                })
            })
            .collect();
        Storm { stop, results, minters, started }
    }

    /// Stops it; every process's outcome, the ones collected first included.
    fn finish(self, mut results: Vec<Minted>) -> Vec<Minted> {
        self.stop.store(true, Ordering::SeqCst);
        for minter in self.minters {
            minter.join().unwrap();
        }
        results.extend(self.results.iter());
        results
    }
}

/// The primary's machine lost for good in a mint storm (keeper and PostgreSQL killed, never
/// back): the standby is promoted and stays alone (`wait_primary`). Every process in flight,
/// its commit in doubt or not, prints its number within its --retry-for: a number read back
/// on the promoted node is as durable there as a fresh mint, which is printed at once.
#[test]
fn a_primary_lost_for_good_mid_storm_leaves_every_mint_printed() {
    let _alone = one_formation();
    let formation = Formation::up();
    let url = formation.url();
    let storm = Storm::start(&url, open_orders(&formation));
    let mut results = Vec::new();
    successes(&mut results, &storm.results, BETWEEN, storm.started);
    let lost = fail_over(&formation, || ());
    successes(&mut results, &storm.results, BETWEEN, lost.at);
    let results = storm.finish(results);
    formation.wait_for("the promoted node alone", Duration::from_secs(60), |nodes| {
        nodes.iter().any(|n| n.name != lost.killed.name && n.reported == "wait_primary")
    });
    let failed: Vec<String> =
        results.iter().filter(|m| m.code != 0).map(|m| format!("order {}: {}", m.order, m.stderr)).collect();
    assert!(failed.is_empty(), "every mint printed its number: {failed:?}");
    let in_doubt = results.iter().filter(|m| m.stderr.contains("while committing")).count();
    let mut per_stringer: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let printed: HashMap<i64, String> =
        results.iter().map(|m| (m.order, m.stdout.trim().to_string())).collect();
    for order in json(&url, &["order", "list", "--format", "json"]).as_array().unwrap() {
        let Some(number) = order["receipt_number"].as_str() else { continue };
        let id = order["id"].as_i64().unwrap();
        assert_eq!(printed.get(&id).map(String::as_str), Some(number), "order {id} holds {number}");
        per_stringer
            .entry(order["stringer"].as_str().unwrap().into())
            .or_default()
            .push(number[5..].parse().unwrap());
    }
    assert_eq!(
        per_stringer.values().map(Vec::len).sum::<usize>(),
        printed.len(),
        "every number printed is stored"
    );
    for (stringer, seqs) in &mut per_stringer {
        seqs.sort_unstable();
        let n = seqs.len() as i64;
        assert_eq!(*seqs, (1..=n).collect::<Vec<_>>(), "stringer {stringer}: 1..{n}");
    }
    let audit = receipts(&url).arg("audit").output().unwrap();
    assert!(audit.status.success(), "{}", String::from_utf8_lossy(&audit.stdout));
    eprintln!(
        "lost for good: {} mints printed, {in_doubt} of them after a commit in doubt; the standby promoted after {:.1} s",
        printed.len(),
        lost.promoted_after.as_secs_f64()
    );
}

/// How a round's primary goes down under mints waiting for their standby.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Crash {
    /// PostgreSQL alone; its keeper starts it again, and it shows the commits only its own
    /// disk had. `standby_catches_up`: replication resumes after the restart, so the standby
    /// can receive them (and a re-run confirm and print them); else the standby never does.
    Postgres { standby_catches_up: bool },
    /// The whole node, keeper and PostgreSQL.
    Node,
}

/// The rounds: the crash of PostgreSQL alone (the case that lost printed numbers), each
/// way, and the whole node, twice over.
const CRASHES: [Crash; 6] = [
    Crash::Postgres { standby_catches_up: false },
    Crash::Node,
    Crash::Postgres { standby_catches_up: true },
    Crash::Postgres { standby_catches_up: false },
    Crash::Node,
    Crash::Postgres { standby_catches_up: true },
];
/// Mints cut off in each round, one per stringer, so that none waits for another's counter.
const IN_FLIGHT: usize = 4;

/// A batch of `receipts mint` processes run at once, one per order.
fn mint_all(url: &str, orders: &[i64], retry_for: &'static str) -> Vec<thread::JoinHandle<Minted>> {
    orders
        .iter()
        .map(|&order| {
            let url = url.to_string();
            thread::spawn(move || mint(&url, order, retry_for))
        })
        .collect()
}

/// Polls `done` every 50 ms for at most `limit`.
fn wait_until(what: &str, limit: Duration, done: impl Fn() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < limit, "{what} within {limit:?}");
        thread::sleep(Duration::from_millis(50));
    }
}

/// Each round: replication is held, so that mints commit on the primary's disk alone and
/// wait for the standby; the primary goes down under them (`Crash`); the mints in doubt are
/// run again; then the node is lost for good and the standby promoted. Every number any
/// process printed must be on the new primary, with its order. Last, with the standby gone
/// (`wait_primary`), a number read back is refused (exit 75) rather than printed.
#[test]
fn a_number_read_back_after_a_crash_is_printed_only_once_a_standby_has_it() {
    let _alone = one_formation();
    let formation = Formation::up();
    let url = formation.url();
    ok(&url, &["db", "migrate"]);
    let csv = formation.dir().join("orders.csv");
    let mut rows = String::from("v1_id,kind,stringer,customer,price\n");
    for s in 1..=IN_FLIGHT {
        for i in 1..=CRASHES.len() {
            rows.push_str(&format!("{i},client,s{s},Customer {i},35.50\n"));
        }
    }
    std::fs::write(&csv, rows).unwrap();
    ok(&url, &["migrate-v1", csv.to_str().unwrap(), "--timezone", "UTC"]);
    let mut per_stringer: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for order in json(&url, &["order", "list", "--status", "open", "--format", "json"]).as_array().unwrap() {
        per_stringer
            .entry(order["stringer"].as_str().unwrap().into())
            .or_default()
            .push(order["id"].as_i64().unwrap());
    }

    let mut told: HashMap<i64, String> = HashMap::new();
    let mut read_back = 0;
    for (round, crash) in CRASHES.into_iter().enumerate() {
        let batch: Vec<i64> = per_stringer.values().map(|orders| orders[round]).collect();
        let primary = formation.settled_primary(Duration::from_secs(120));
        let standby = formation.state().into_iter().find(|n| n.name != primary.name).unwrap();
        assert!(formation.hold_replication(&primary.name, &standby.name, true), "{} streams", standby.name);
        let first = mint_all(&url, &batch, "0");
        wait_until(
            "the mints commit on the primary and wait for the standby",
            Duration::from_secs(60),
            || formation.waiting_for_standby(primary.port) == batch.len(),
        );
        match crash {
            Crash::Postgres { .. } => formation.kill_postgres(&primary.name),
            Crash::Node => formation.kill_node(&primary.name),
        }
        for minted in first.into_iter().map(|t| t.join().unwrap()) {
            assert_eq!(
                (minted.code, minted.stdout.as_str()),
                (69, ""),
                "cut off while committing: {}",
                minted.stderr
            );
        }
        let still_primary =
            || formation.state().iter().any(|n| n.name == primary.name && n.assigned == "primary");
        match crash {
            Crash::Node => {
                formation.hold_replication(&primary.name, &standby.name, false);
            }
            Crash::Postgres { standby_catches_up: true } => {
                wait_until(
                    "the primary's PostgreSQL restarted by its keeper",
                    Duration::from_secs(60),
                    || formation.query(primary.port, "SELECT 1").is_some() || !still_primary(),
                );
                formation.hold_replication(&primary.name, &standby.name, false);
            }
            Crash::Postgres { standby_catches_up: false } => {}
        }
        // The way out of doubt: the same command again.
        let again = mint_all(&url, &batch, "90");
        if let Crash::Postgres { .. } = crash {
            // Until each re-run has printed, or waits on the restarted primary for a standby.
            wait_until("the re-runs reach the restarted primary", Duration::from_secs(60), || {
                let finished = again.iter().filter(|t| t.is_finished()).count();
                finished + formation.waiting_for_standby(primary.port) >= batch.len() || !still_primary()
            });
            // Whatever they printed, the primary is lost for good now: the standby takes over
            // with what it has.
            formation.kill_node(&primary.name);
            formation.hold_replication(&primary.name, &standby.name, false);
        }
        formation.wait_for("the standby promoted", Duration::from_secs(120), |nodes| {
            nodes
                .iter()
                .any(|n| n.name == standby.name && matches!(n.reported.as_str(), "primary" | "wait_primary"))
        });
        for minted in again.into_iter().map(|t| t.join().unwrap()) {
            assert_eq!(minted.code, 0, "order {}: {}", minted.order, minted.stderr);
            read_back += usize::from(minted.stderr.contains("already has receipt"));
            told.insert(minted.order, minted.stdout.trim().to_string());
        }
        // On the new primary: every number printed, with its order.
        for order in json(&url, &["order", "list", "--format", "json"]).as_array().unwrap() {
            let id = order["id"].as_i64().unwrap();
            if let Some(number) = told.get(&id) {
                assert_eq!(
                    order["receipt_number"].as_str(),
                    Some(number.as_str()),
                    "{crash:?}: order {id} was told {number}"
                );
            }
        }
        formation.restart_node(&primary.name);
    }
    assert_eq!(told.len(), CRASHES.len() * IN_FLIGHT);
    let audit = receipts(&url).arg("audit").output().unwrap();
    assert!(audit.status.success(), "{}", String::from_utf8_lossy(&audit.stdout));
    for (stringer, orders) in &per_stringer {
        let mut seqs: Vec<i64> = orders.iter().map(|order| told[order][5..].parse().unwrap()).collect();
        seqs.sort_unstable();
        let n = seqs.len() as i64;
        assert_eq!(seqs, (1..=n).collect::<Vec<_>>(), "stringer {stringer}: 1..{n}");
    }

    // The primary alone (its standby lost, `wait_primary`): a fresh mint goes on, as
    // pg_auto_failover lets it, and so is a number read back printed: no node can be
    // promoted in its place without first taking everything from it.
    let primary = formation.settled_primary(Duration::from_secs(120));
    let standby = formation.state().into_iter().find(|n| n.name != primary.name).unwrap();
    formation.kill_node(&standby.name);
    formation.wait_for("the primary alone", Duration::from_secs(60), |nodes| {
        nodes.iter().any(|n| n.name == primary.name && n.reported == "wait_primary")
    });
    let numbered = per_stringer["s1"][0];
    let alone = mint(&url, numbered, "0");
    assert_eq!((alone.code, alone.stdout.trim()), (0, told[&numbered].as_str()), "{}", alone.stderr);
    formation.restart_node(&standby.name);
    formation.settled_primary(Duration::from_secs(120));
    let confirmed = mint(&url, numbered, "0");
    assert_eq!(confirmed.code, 0, "{}", confirmed.stderr);
    assert_eq!(confirmed.stdout.trim(), told[&numbered]);
    eprintln!(
        "doubt: {} rounds of {IN_FLIGHT} mints cut off while committing; {read_back} re-runs printed a \
         number read back once a standby had it, the others minted anew on the promoted standby",
        CRASHES.len()
    );
}
