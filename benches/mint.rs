//! The mint against the raw-SQL floor, and CLI latency, measured in one run.
//!
//!     benches/mint.sh            (starts a throwaway PostgreSQL, then `cargo bench --bench mint`)
//!
//! Prints Markdown tables and writes `docs/mint-throughput.png`. Figures, not pass/fail:
//! the only failures are wrong answers (every cell is checked to be numbered 1..N).
//! `BENCH_SECONDS` sets the length of each throughput cell (default 10).

use anyhow::{bail, ensure, Context, Result};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use diesel::PgConnection;
use receipts::db::{DatabaseUrl, Db, Tenant};
use receipts::domain::OrderId;
use receipts::ops::mint::mint;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

const YEAR: i32 = 2026;
const STRUNG_AT: &str = "2026-06-01 10:00:00";
const PG_WORKERS: [usize; 3] = [1, 4, 16];
const SQLITE_WORKERS: [usize; 2] = [1, 4];
const SQLITE_MINTS: i64 = 20_000;
const CLI_RUNS: usize = 200;

fn main() -> Result<()> {
    let admin = std::env::var("RECEIPTS_TEST_PG_URL")
        .context("RECEIPTS_TEST_PG_URL is not set: run benches/mint.sh, which starts PostgreSQL")?;
    let bindir = PathBuf::from(std::env::var("RECEIPTS_TEST_PG_BINDIR")?);
    let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(10);
    let cell = Duration::from_secs(seconds);
    let pg = Postgres { admin, bindir, created: AtomicUsize::new(0) };
    let scratch = tempfile::tempdir()?;

    println!("## Mint throughput on PostgreSQL ({seconds} s per cell)\n");
    println!(
        "| workload | workers | library mint (mints/s) | (i) upsert + update, prepared (tx/s) | (i) unnamed statements (tx/s) \
         | (ii) floor: one-row UPDATE, prepared (tx/s) | mint / (i) prepared | mint / (i) unnamed | mint / (ii) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut series = Vec::new();
    for (workload, stringers) in [("one stringer", 1), ("64 stringers", 64)] {
        let mut points = Vec::new();
        for workers in PG_WORKERS {
            let library = pg.library_mints(stringers, workers, cell)?;
            let upsert = pg.pgbench(stringers, workers, seconds, UPSERT_SCRIPT, "prepared")?;
            let unnamed = pg.pgbench(stringers, workers, seconds, UPSERT_SCRIPT, "extended")?;
            let floor = pg.pgbench(stringers, workers, seconds, FLOOR_SCRIPT, "prepared")?;
            println!(
                "| {workload} | {workers} | {library:.0} | {upsert:.0} | {unnamed:.0} | {floor:.0} | {:.2} | {:.2} | {:.2} |",
                library / upsert,
                library / unnamed,
                library / floor
            );
            points.push(Point { workers, library, upsert, unnamed, floor });
        }
        series.push((workload, points));
    }
    println!("\n### Why the mint is a server-side function\n");
    println!("The same mint, one client, unnamed statements (as behind PgBouncer), {seconds} s each:\n");
    println!("| shape | tx/s |");
    println!("|---|---:|");
    let cte = pg.pgbench(1, 1, seconds, MINT_AS_ONE_CTE, "extended")?;
    let unguarded = pg.pgbench(1, 1, seconds, MINT_UNGUARDED, "extended")?;
    let function = pg.pgbench(1, 1, seconds, MINT_AS_FUNCTION_CALL, "extended")?;
    println!("| one data-modifying CTE statement, planned on every call | {cte:.0} |");
    println!(
        "| `SELECT receipts_mint(...)` of the first release, its statements' plans cached by the server process \
         | {unguarded:.0} |"
    );
    println!(
        "| `SELECT receipts_mint(...)` as now: the same, in a block that reports lock waits in any server \
         language (a subtransaction per mint) | {function:.0} |"
    );
    let plot_data = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mint-throughput.tsv");
    write_plot_data(&plot_data, &series)?;
    println!();

    println!("## Mint throughput on SQLite ({SQLITE_MINTS} mints, one file, WAL)\n");
    println!("| workers | library mint (mints/s) | the same SQL by the sqlite3 shell (mints/s) | ratio |");
    println!("|---:|---:|---:|---:|");
    for workers in SQLITE_WORKERS {
        let library = sqlite_library_mints(scratch.path(), workers)?;
        let shell = sqlite_shell_mints(scratch.path(), workers)?;
        println!("| {workers} | {library:.0} | {shell:.0} | {:.2} |", library / shell);
    }

    println!("\n## `receipts mint` as a whole process ({CLI_RUNS} runs each)\n");
    println!("| backend | command | median (ms) | p95 (ms) |");
    println!("|---|---|---:|---:|");
    for row in cli_latencies(&pg, scratch.path())? {
        println!("| {} | {} | {:.2} | {:.2} |", row.0, row.1, ms(row.2.median), ms(row.2.p95));
    }

    println!("\n## Statements per mint on PostgreSQL (pg_stat_statements)\n");
    let (library, cli) = pg.statements_per_mint()?;
    println!("- library `mint`: {library:.2} statements per mint (100 mints on one connection)");
    println!(
        "- one `receipts mint` process: {cli} statements, the session setup diesel sends on connect included"
    );
    Ok(())
}

/// (i): what the mint does, as bare SQL: the counter upsert and the order update in one
/// statement. Order ids come from a sequence; order k belongs to stringer ((k - 1) % S) + 1.
const UPSERT_SCRIPT: &str = "
WITH o AS (SELECT nextval('bench_orders') AS id),
bumped AS (
    INSERT INTO receipt_counters AS c (stringer_id, year, last_n, created_at, updated_at)
    SELECT ((o.id - 1) % :stringers) + 1, 2026, 1, now(), now() FROM o
    ON CONFLICT (stringer_id, year) DO UPDATE SET last_n = c.last_n + 1, updated_at = EXCLUDED.updated_at
    RETURNING last_n)
UPDATE orders SET strung_at = now(), receipt_year = 2026, receipt_seq = bumped.last_n,
    updated_at = now()
FROM bumped, o WHERE orders.id = o.id;
";

/// The mint as one statement: lock the order, bump, number, journal (the shape the program
/// used before `receipts_mint`).
const MINT_AS_ONE_CTE: &str = "
WITH o AS (SELECT nextval('bench_orders') AS id),
target AS (
    SELECT orders.id FROM orders, o
    WHERE orders.id = o.id AND stringer_id = 1 AND receipt_number IS NULL
      AND set_config('lock_timeout', '5000', true) IS NOT NULL
    FOR UPDATE OF orders
), bumped AS (
    INSERT INTO receipt_counters AS c (stringer_id, year, last_n, created_at, updated_at)
    SELECT 1, 2026, 1, now(), now() FROM target
    ON CONFLICT (stringer_id, year) DO UPDATE SET last_n = c.last_n + 1, updated_at = EXCLUDED.updated_at
    RETURNING last_n
), numbered AS (
    UPDATE orders SET strung_at = now(), receipt_year = 2026, receipt_seq = bumped.last_n,
        updated_at = now()
    FROM bumped, o WHERE orders.id = o.id
    RETURNING orders.id, orders.receipt_seq
), journal AS (
    INSERT INTO receipt_events (kind, stringer_id, year, first_seq, last_seq, order_id, counter_old, counter_new, created_at)
    SELECT 'mint', 1, 2026, receipt_seq, receipt_seq, id, receipt_seq - 1, receipt_seq, now() FROM numbered
)
SELECT receipt_seq FROM numbered;
";

/// The mint as the program sends it on PostgreSQL.
const MINT_AS_FUNCTION_CALL: &str = "
SELECT receipts_mint(nextval('bench_orders'), 1, 2026, now()::timestamp, now()::timestamp, '5000');
";

/// The mint function of the first release, before its lock waits were reported in a
/// language-independent way, under a name of its own.
const MINT_UNGUARDED: &str = "
SELECT receipts_mint_unguarded(nextval('bench_orders'), 1, 2026, now()::timestamp, now()::timestamp, '5000');
";

/// (ii): the floor, a one-row counter bump.
const FLOOR_SCRIPT: &str = "
\\set id random(1, :stringers)
UPDATE bench_floor SET n = n + 1 WHERE id = :id;
";

struct Postgres {
    admin: String,
    bindir: PathBuf,
    created: AtomicUsize,
}

impl Postgres {
    /// A fresh, migrated database with `stringers` stringers (s1..) and `orders` orders,
    /// order k belonging to stringer ((k - 1) % stringers) + 1.
    fn database(&self, stringers: i64, orders: i64) -> Result<String> {
        let name = format!("bench_{}", self.created.fetch_add(1, Ordering::Relaxed));
        PgConnection::establish(&self.admin)?.batch_execute(&format!("CREATE DATABASE {name}"))?;
        let url = format!("{}/{name}", self.admin.rsplit_once('/').context("a URL ending in /database")?.0);
        let mut db = Db::connect(&DatabaseUrl::Postgres(url.clone()), Duration::from_secs(30))?;
        db.migrate()?;
        db.without_transaction(|c| c.batch_execute(&format!(
            "INSERT INTO stringers (handle, name, timezone, created_at, updated_at)
                 SELECT 's' || g, 's' || g, 'UTC', now(), now() FROM generate_series(1, {stringers}) g;
             INSERT INTO orders (stringer_id, kind, price_minor, created_at, updated_at)
                 SELECT ((g - 1) % {stringers}) + 1, 'client', 3500, now(), now() FROM generate_series(1, {orders}) g;
             CREATE SEQUENCE bench_orders;
             CREATE TABLE bench_floor (id BIGINT PRIMARY KEY, n BIGINT NOT NULL);
             INSERT INTO bench_floor SELECT g, 0 FROM generate_series(1, {stringers}) g;
             CREATE EXTENSION IF NOT EXISTS pg_stat_statements;"
        )))?;
        // The first release's function, on today's schema, where the number's text is derived.
        let unguarded = include_str!("../migrations/postgres/2026-11-22-000001_mint_function/up.sql")
            .replace("CREATE FUNCTION receipts_mint(", "CREATE FUNCTION receipts_mint_unguarded(")
            .replace(
                "receipt_number = lpad(p_year::text, 4, '0') || '-'\n            || CASE WHEN seq < 10000 THEN lpad(seq::text, 4, '0') ELSE seq::text END,\n",
                "",
            );
        db.without_transaction(|c| c.batch_execute(&unguarded))?;
        db.without_transaction(|c| c.batch_execute("VACUUM ANALYZE"))?;
        Ok(url)
    }

    /// The library's `mint`, `workers` threads with a connection each, for `cell`.
    fn library_mints(&self, stringers: i64, workers: usize, cell: Duration) -> Result<f64> {
        let orders = 600_000;
        let url = DatabaseUrl::Postgres(self.database(stringers, orders)?);
        let (mints, elapsed) = run_mints(&url, stringers, workers, orders, Some(cell))?;
        ensure!(mints < orders as u64, "the cell ran out of orders: make it shorter or add orders");
        let numbered = verify(&mut Db::connect(&url, Duration::from_secs(30))?)?;
        ensure!(numbered == mints, "{mints} mints but {numbered} numbered orders");
        Ok(mints as f64 / elapsed.as_secs_f64())
    }

    /// pgbench running `script` with `clients` connections for `seconds`: transactions/s.
    /// `protocol` "prepared" plans once per connection; "extended" sends unnamed statements,
    /// as the program must (PgBouncer in transaction mode keeps no prepared statements).
    fn pgbench(
        &self,
        stringers: i64,
        clients: usize,
        seconds: u64,
        script: &str,
        protocol: &str,
    ) -> Result<f64> {
        let url = self.database(stringers, 600_000)?;
        let file = tempfile::NamedTempFile::new()?;
        std::fs::write(file.path(), script)?;
        let out = Command::new(self.bindir.join("pgbench"))
            .args(["-n", "-M", protocol, "-c", &clients.to_string(), "-j", &clients.to_string()])
            .args(["-T", &seconds.to_string(), "-D", &format!("stringers={stringers}"), "-f"])
            .arg(file.path())
            .arg(&url)
            .output()?;
        let text = String::from_utf8_lossy(&out.stdout);
        ensure!(out.status.success(), "pgbench failed: {}{}", text, String::from_utf8_lossy(&out.stderr));
        let field = |prefix: &str| -> Result<f64> {
            let line = text
                .lines()
                .find(|l| l.starts_with(prefix))
                .with_context(|| format!("no '{prefix}' in {text}"))?;
            let value = line[prefix.len()..].split_whitespace().next().context("a number")?;
            Ok(value.parse()?)
        };
        let transactions = field("number of transactions actually processed: ")? as u64;
        let mut db = Db::connect(&DatabaseUrl::Postgres(url), Duration::from_secs(30))?;
        if script != FLOOR_SCRIPT {
            ensure!(verify(&mut db)? == transactions, "pgbench's upserts are not numbered 1..N");
        } else {
            let bumps = query_i64(&mut db, "SELECT CAST(sum(n) AS BIGINT) AS value FROM bench_floor")?;
            ensure!(bumps == transactions as i64, "{transactions} floor transactions but {bumps} bumps");
        }
        field("tps = ")
    }

    /// Statements PostgreSQL receives per library mint, and for one `receipts mint` process.
    fn statements_per_mint(&self) -> Result<(f64, i64)> {
        let url = self.database(1, 1_000)?;
        let database = DatabaseUrl::Postgres(url.clone());
        let mut minter = Db::connect(&database, Duration::from_secs(5))?;
        let mut stats = Db::connect(&database, Duration::from_secs(5))?;
        let tenant = minter.read(|c| Tenant::load(c, "s1"))?;
        let at = chrono::NaiveDateTime::parse_from_str(STRUNG_AT, "%Y-%m-%d %H:%M:%S")?;
        let count = "SELECT CAST(COALESCE(sum(calls), 0) AS BIGINT) AS value FROM pg_stat_statements \
                     WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                     AND query NOT LIKE '%pg_stat_statements%'";
        stats.without_transaction(|c| c.batch_execute("SELECT pg_stat_statements_reset()"))?;
        for id in 1..=100 {
            mint(&mut minter, &tenant, OrderId(id), at)?;
        }
        let library = query_i64(&mut stats, count)? as f64 / 100.0;
        stats.without_transaction(|c| c.batch_execute("SELECT pg_stat_statements_reset()"))?;
        run_ok(Command::new(env!("CARGO_BIN_EXE_receipts")).args([
            "--database-url",
            &url,
            "mint",
            "--order",
            "101",
            "--stringer",
            "s1",
            "--at",
            STRUNG_AT,
        ]))?;
        let cli = query_i64(&mut stats, count)?;
        Ok((library, cli))
    }
}

/// Mints orders 1..=orders from `workers` threads, each with its own connection, until the
/// orders or the time run out. Returns the number of mints and the time they took.
fn run_mints(
    url: &DatabaseUrl,
    stringers: i64,
    workers: usize,
    orders: i64,
    limit: Option<Duration>,
) -> Result<(u64, Duration)> {
    let mut setup = Db::connect(url, Duration::from_secs(30))?;
    let tenants: Arc<Vec<Tenant>> = Arc::new(
        (1..=stringers)
            .map(|i| setup.read(|c| Tenant::load(c, &format!("s{i}"))))
            .collect::<Result<_, _>>()?,
    );
    let at = chrono::NaiveDateTime::parse_from_str(STRUNG_AT, "%Y-%m-%d %H:%M:%S")?;
    let next = Arc::new(AtomicI64::new(1));
    let barrier = Arc::new(Barrier::new(workers + 1));
    let threads: Vec<_> = (0..workers)
        .map(|_| -> Result<_> {
            let mut db = Db::connect(url, Duration::from_secs(30))?;
            let (tenants, next, barrier) = (Arc::clone(&tenants), Arc::clone(&next), Arc::clone(&barrier));
            Ok(std::thread::spawn(move || -> Result<u64> {
                barrier.wait();
                let start = Instant::now();
                let mut mints = 0;
                while limit.is_none_or(|limit| start.elapsed() < limit) {
                    let id = next.fetch_add(1, Ordering::Relaxed);
                    if id > orders {
                        break;
                    }
                    let tenant = &tenants[((id - 1) % stringers) as usize];
                    let minted = mint(&mut db, tenant, OrderId(id), at)?;
                    ensure!(minted.is_fresh(), "order {id} was minted twice");
                    mints += 1;
                }
                Ok(mints)
            }))
        })
        .collect::<Result<_>>()?;
    barrier.wait();
    let start = Instant::now();
    let mut mints = 0;
    for thread in threads {
        mints += thread.join().map_err(|_| anyhow::anyhow!("a worker panicked"))??;
    }
    Ok((mints, start.elapsed()))
}

/// Every (stringer, year) is numbered exactly 1..=N with its counter at N; returns the
/// number of numbered orders.
fn verify(db: &mut Db) -> Result<u64> {
    let broken = query_i64(
        db,
        "SELECT CAST(count(*) AS BIGINT) AS value FROM (
             SELECT stringer_id, receipt_year, count(*) AS n, count(DISTINCT receipt_seq) AS d, max(receipt_seq) AS m
             FROM orders WHERE receipt_number IS NOT NULL GROUP BY stringer_id, receipt_year
         ) s LEFT JOIN receipt_counters c ON c.stringer_id = s.stringer_id AND c.year = s.receipt_year
         WHERE NOT (s.n = s.m AND s.d = s.n AND c.last_n = s.n)",
    )?;
    ensure!(broken == 0, "{broken} (stringer, year) sequences are not 1..N");
    Ok(
        query_i64(
            db,
            "SELECT CAST(count(*) AS BIGINT) AS value FROM orders WHERE receipt_number IS NOT NULL",
        )? as u64,
    )
}

fn query_i64(db: &mut Db, sql: &str) -> Result<i64> {
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = diesel::sql_types::Nullable<BigInt>)]
        value: Option<i64>,
    }
    Ok(db.without_transaction(|c| diesel::sql_query(sql).get_result::<Row>(c))?.value.unwrap_or(0))
}

/// An SQLite file with one stringer (s1) and `orders` orders.
fn sqlite_database(dir: &Path, name: &str, orders: i64) -> Result<DatabaseUrl> {
    let path = dir.join(name);
    let url = DatabaseUrl::Sqlite(path);
    let mut db = Db::connect(&url, Duration::from_secs(30))?;
    db.without_transaction(|c| {
        c.batch_execute(&format!(
            "INSERT INTO stringers (handle, name, timezone, created_at, updated_at)
             VALUES ('s1', 's1', 'UTC', '{STRUNG_AT}', '{STRUNG_AT}');
         WITH RECURSIVE g(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM g WHERE k < {orders})
         INSERT INTO orders (stringer_id, kind, price_minor, created_at, updated_at)
             SELECT 1, 'client', 3500, '{STRUNG_AT}', '{STRUNG_AT}' FROM g;"
        ))
    })?;
    Ok(url)
}

fn sqlite_library_mints(dir: &Path, workers: usize) -> Result<f64> {
    let url = sqlite_database(dir, &format!("library-{workers}.db"), SQLITE_MINTS)?;
    let (mints, elapsed) = run_mints(&url, 1, workers, SQLITE_MINTS, None)?;
    ensure!(verify(&mut Db::connect(&url, Duration::from_secs(30))?)? == mints);
    Ok(mints as f64 / elapsed.as_secs_f64())
}

/// The same mint as SQL, one transaction per order.
fn sqlite_mint_sql(order: i64) -> String {
    format!(
        "BEGIN IMMEDIATE;
         INSERT INTO receipt_counters (stringer_id, year, last_n, created_at, updated_at)
             VALUES (1, {YEAR}, 1, '{STRUNG_AT}', '{STRUNG_AT}')
             ON CONFLICT (stringer_id, year) DO UPDATE SET last_n = last_n + 1, updated_at = excluded.updated_at;
         UPDATE orders SET strung_at = '{STRUNG_AT}', receipt_year = {YEAR},
             receipt_seq = (SELECT last_n FROM receipt_counters WHERE stringer_id = 1 AND year = {YEAR}),
             updated_at = '{STRUNG_AT}'
         WHERE id = {order} AND receipt_number IS NULL;
         COMMIT;\n"
    )
}

/// `workers` sqlite3 shells at once, each running its share of the mints as SQL.
fn sqlite_shell_mints(dir: &Path, workers: usize) -> Result<f64> {
    let url = sqlite_database(dir, &format!("shell-{workers}.db"), SQLITE_MINTS)?;
    let DatabaseUrl::Sqlite(path) = &url else { bail!("an SQLite URL") };
    let scripts: Vec<PathBuf> = (0..workers)
        .map(|w| -> Result<PathBuf> {
            let mut sql = String::from(".timeout 30000\nPRAGMA synchronous = NORMAL;\n");
            for order in (1..=SQLITE_MINTS).filter(|k| (k - 1) as usize % workers == w) {
                sql.push_str(&sqlite_mint_sql(order));
            }
            let script = dir.join(format!("shell-{workers}-{w}.sql"));
            std::fs::write(&script, sql)?;
            Ok(script)
        })
        .collect::<Result<_>>()?;
    let start = Instant::now();
    let shells: Vec<_> = scripts
        .iter()
        .map(|script| {
            Command::new("sqlite3").arg(path).stdin(std::fs::File::open(script)?).spawn().map_err(Into::into)
        })
        .collect::<Result<_>>()?;
    for mut shell in shells {
        ensure!(shell.wait()?.success(), "sqlite3 failed");
    }
    let elapsed = start.elapsed();
    ensure!(verify(&mut Db::connect(&url, Duration::from_secs(30))?)? == SQLITE_MINTS as u64);
    Ok(SQLITE_MINTS as f64 / elapsed.as_secs_f64())
}

struct Latency {
    median: Duration,
    p95: Duration,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Runs `command(i)` for i in 1..=CLI_RUNS, one after the other, timing each process.
fn latency(mut command: impl FnMut(usize) -> Command) -> Result<Latency> {
    let mut times = Vec::with_capacity(CLI_RUNS);
    for i in 1..=CLI_RUNS {
        let mut cmd = command(i);
        let start = Instant::now();
        run_ok(&mut cmd)?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok(Latency { median: times[CLI_RUNS / 2], p95: times[CLI_RUNS * 95 / 100] })
}

fn run_ok(cmd: &mut Command) -> Result<()> {
    let out = cmd.output()?;
    ensure!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    Ok(())
}

fn cli_latencies(pg: &Postgres, dir: &Path) -> Result<Vec<(&'static str, &'static str, Latency)>> {
    let receipts = env!("CARGO_BIN_EXE_receipts");
    let mint = |url: String| {
        move |i: usize| {
            let mut cmd = Command::new(receipts);
            cmd.args([
                "--database-url",
                &url,
                "mint",
                "--order",
                &i.to_string(),
                "--stringer",
                "s1",
                "--at",
                STRUNG_AT,
                "--backdate",
            ]);
            cmd
        }
    };
    let mut rows = Vec::new();
    rows.push((
        "none",
        "`receipts --version` (process start alone)",
        latency(|_| {
            let mut cmd = Command::new(receipts);
            cmd.arg("--version");
            cmd
        })?,
    ));

    let DatabaseUrl::Sqlite(ours) = sqlite_database(dir, "cli.db", CLI_RUNS as i64)? else { bail!("SQLite") };
    rows.push(("SQLite", "`receipts mint --order N`", latency(mint(ours.to_string_lossy().into_owned()))?));
    let DatabaseUrl::Sqlite(floor) = sqlite_database(dir, "cli-floor.db", CLI_RUNS as i64)? else {
        bail!("SQLite")
    };
    rows.push((
        "SQLite",
        "floor: `sqlite3 FILE \"<the same upsert and update>\"`",
        latency(|i| {
            let mut cmd = Command::new("sqlite3");
            cmd.arg(&floor)
                // Not `.timeout`: an argument that starts with a dot command is that command
                // alone, and the SQL after it would not run.
                .arg(format!(
                    "PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;\n{}",
                    sqlite_mint_sql(i as i64)
                ));
            cmd
        })?,
    ));

    let ours = pg.database(1, CLI_RUNS as i64)?;
    rows.push(("PostgreSQL", "`receipts mint --order N`", latency(mint(ours))?));
    let floor = pg.database(1, CLI_RUNS as i64)?;
    let psql = pg.bindir.join("psql");
    rows.push((
        "PostgreSQL",
        "floor: `psql URL -c \"<the same upsert and update>\"`",
        latency(|i| {
            let mut cmd = Command::new(if psql.exists() { psql.as_path() } else { Path::new("psql") });
            let sql =
                UPSERT_SCRIPT.replace("nextval('bench_orders')", &i.to_string()).replace(":stringers", "1");
            cmd.args(["-q", "-X", &floor, "-c", &sql]);
            cmd
        })?,
    ));
    Ok(rows)
}

/// One cell of the PostgreSQL table.
struct Point {
    workers: usize,
    library: f64,
    upsert: f64,
    unnamed: f64,
    floor: f64,
}

/// The figures behind docs/mint-throughput.png, for benches/mint-plot.gp: one block per
/// workload (two blank lines between), tab-separated rows of workers, library mint,
/// (i) prepared, (i) unnamed and (ii) floor.
fn write_plot_data(path: &Path, series: &[(&str, Vec<Point>)]) -> Result<()> {
    let blocks: Vec<String> = series
        .iter()
        .map(|(_, points)| {
            points
                .iter()
                .map(|p| {
                    format!(
                        "{}\t{:.0}\t{:.0}\t{:.0}\t{:.0}\n",
                        p.workers, p.library, p.upsert, p.unnamed, p.floor
                    )
                })
                .collect()
        })
        .collect();
    std::fs::write(path, blocks.join("\n\n")).with_context(|| format!("cannot write {}", path.display()))
}
