//! `receipts audit`: every (stringer, year) sequence checked, its problems listed (exit 1).

use super::output::{self, Rows, Shown};
use super::{Context, StringerOpt};
use crate::db::audit::YearAudit;
use crate::db::Access;
use crate::domain::ReceiptNumber;
use crate::ops;
use crate::Error;
use anyhow::Context as _;
use clap::Args;
use serde::Serialize;
use tabled::Tabled;

#[derive(Debug, Args)]
pub struct Opts {
    /// Only this stringer
    #[command(flatten)]
    stringer: StringerOpt,
    /// Only this year
    #[arg(long)]
    year: Option<i32>,
    /// A table for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
    /// Also recompute every stringer's journal chain from its start: each event's hash, its
    /// place, the head; the first break is named (stringer, event, what)
    #[arg(long)]
    verify: bool,
    /// With --verify: the stringer's public key as kept outside the database (`key init`
    /// printed it); the closures must be signed by it or by a key it handed over to
    #[arg(long, value_name = "HEX", requires = "verify")]
    public_key: Option<String>,
    /// With --verify: a closure's digest kept outside the database (`close --mail` sends
    /// them); each must be found in the journal. May be repeated
    #[arg(long = "anchor", value_name = "DIGEST", requires = "verify")]
    anchors: Vec<String>,
}

#[derive(Serialize, Tabled)]
struct Row {
    stringer: String,
    /// receipts, or credit notes (C-YYYY-NNNN)
    series: &'static str,
    year: i32,
    numbers: i64,
    highest: String,
    counter: String,
    voids: usize,
    gaps: usize,
    status: &'static str,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let mut db = ctx.open(Access::Read)?;
    let tenant = opts.stringer.whose().optional(&mut db)?;
    let report =
        ops::reports::audit(&mut db, tenant.as_ref(), opts.year).context("cannot audit the numbering")?;
    match opts.format {
        Shown::Json => output::json(&report)?,
        Shown::Table => table(&report)?,
    }
    if opts.verify {
        verify(&mut db, &opts)?;
    }
    let unsound = report.iter().filter(|y| !y.is_sound()).count();
    if unsound > 0 {
        let problems: usize = report.iter().map(|y| y.problems.len()).sum();
        return Err(Error::AuditFailed(format!(
            "the audit found {} in {unsound} of {} (stringer, series, year) sequences",
            output::count(problems, "problem"),
            report.len()
        ))
        .into());
    }
    eprintln!(
        "audit passed: {} (stringer, series, year) sequences, each numbered 1..N with every void explained",
        report.len()
    );
    Ok(())
}

/// The chains and closures recomputed: a line per stringer on stderr, the first break an
/// error (exit 1), and what is not proven said last.
fn verify(db: &mut crate::db::Db, opts: &Opts) -> anyhow::Result<()> {
    let tenants = opts.stringer.whose().or_all(db)?;
    if opts.public_key.is_some() && tenants.len() != 1 {
        return Err(
            Error::Usage("--public-key is one stringer's: name the stringer with --stringer".into()).into()
        );
    }
    let anchors: Vec<String> = opts.anchors.iter().map(|a| a.trim().to_lowercase()).collect();
    let public_key = opts.public_key.as_deref().map(|k| k.trim().to_lowercase());
    let verified = ops::reports::verify_chains(db, &tenants, public_key.as_deref(), &anchors)
        .context("cannot verify the journal")?;
    let mut broken: Option<String> = None;
    let mut found_anchors: Vec<&String> = Vec::new();
    for (chain, closures) in &verified {
        let who = &chain.stringer;
        match (&chain.broken, &chain.head) {
            (Some(why), _) => {
                eprintln!("{who}: the journal is broken at event {}: {}", why.seq, why.what);
                broken = broken.or(Some(why.to_string()));
            }
            (None, Some(head)) => {
                eprintln!(
                    "{who}: {} chained, head {}",
                    output::count(chain.events as usize, "event"),
                    &head[..16]
                )
            }
            (None, None) => eprintln!("{who}: no events yet"),
        }
        let Some(closures) = closures else { continue };
        if let Some(why) = &closures.broken {
            let at =
                if why.closure > 0 { format!("closure {}", why.closure) } else { "its keys".to_string() };
            eprintln!("{who}: the closures are broken at {at}: {}", why.what);
            broken = broken.or(Some(format!("stringer {who}, {at}: {}", why.what)));
            continue;
        }
        match &closures.last {
            Some((seq, day, digest)) => eprintln!(
                "{who}: {} signed and summed again, the last {seq} of {day}, digest {digest}",
                output::count(closures.count as usize, "closure")
            ),
            None => eprintln!("{who}: no closures yet"),
        }
        for (event, first, last) in &closures.lost {
            eprintln!(
                "{who}: closures {first}..{last} were lost in the restore declared at event {event} (resync-counters --last-closure), not removed in secret"
            );
        }
        found_anchors.extend(&closures.anchors_found);
    }
    for anchor in &anchors {
        if broken.is_none() && !found_anchors.contains(&anchor) {
            eprintln!("the anchor {anchor} is not the digest of any closure in the journal");
            broken = Some(format!(
                "the anchor {anchor} was not found: the closures were rewritten or removed since it was kept"
            ));
        }
    }
    let mut used = Vec::new();
    if let Some(key) = &public_key {
        used.push(format!("the public key {}", crate::signing::fingerprint(key)));
    }
    if !anchors.is_empty() {
        used.push(output::count(anchors.len(), "closure digest"));
    }
    if used.is_empty() {
        eprintln!(
            "not proven: no anchor was given, and whoever holds the database can recompute a chain \
             from its start or remove its latest events; pass --public-key and --anchor with what \
             you kept outside it"
        );
    } else {
        eprintln!(
            "anchors used: {}; not proven: events after the last closure whose digest left the \
             database can be removed without a trace",
            used.join(" and ")
        );
    }
    match broken {
        Some(why) => Err(Error::AuditFailed(format!("the journal is broken: {why}")).into()),
        None => Ok(()),
    }
}

/// The table, then one line per void and per problem.
fn table(report: &[YearAudit]) -> std::io::Result<()> {
    let mut rows = Rows::<Row>::new(Shown::Table.into());
    for y in report {
        rows.push(&Row {
            stringer: y.stringer.clone(),
            series: y.series.label(),
            year: y.year,
            numbers: y.numbers,
            highest: if y.highest > 0 {
                y.series.number(ReceiptNumber::new(y.year, y.highest))
            } else {
                String::new()
            },
            counter: output::cell(y.counter),
            voids: y.voids.len(),
            gaps: y.gaps.len(),
            status: if y.is_sound() { "ok" } else { "PROBLEM" },
        })?;
    }
    rows.finish()?;
    for y in report {
        for void in &y.voids {
            let order = void.order.map(|order| format!(" (order {order})")).unwrap_or_default();
            output::line(&format!(
                "{} {}: void {}{order}: {}",
                y.stringer, y.year, void.number, void.reason
            ))?;
        }
        for problem in &y.problems {
            output::line(&format!("{} {}: PROBLEM: {problem}", y.stringer, y.year))?;
        }
    }
    Ok(())
}
