//! `receipts close`: the stringer's business day closed, summed and signed.

use super::notify::ServerOpt;
use super::output::{self, Shown};
use super::{Context, StringerOpt};
use crate::db::closures::{Closure, Totals};
use crate::db::Access;
use crate::domain::parse_day;
use crate::ops::closures;
use crate::signing;
use chrono::NaiveDate;
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct Opts {
    #[command(flatten)]
    stringer: StringerOpt,
    /// The day to close (earlier unclosed days are closed first, in order) [default: today]
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = parse_day)]
    date: Option<NaiveDate>,
    /// The signing key [default: keys/HANDLE.ed25519 in the data directory, or in
    /// RECEIPTS_KEY_DIR]
    #[arg(long, value_name = "FILE")]
    key_file: Option<PathBuf>,
    /// E-mail the closures' digests to the stringer's own address (an anchor outside the
    /// database)
    #[arg(long)]
    mail: bool,
    #[command(flatten)]
    server: ServerOpt,
    /// A summary for people, or JSON for scripts
    #[arg(long, value_enum, default_value_t)]
    format: Shown,
}

/// A closure as it is shown.
#[derive(Serialize)]
struct ClosureShown {
    stringer: String,
    seq: i64,
    day: String,
    first_event_seq: i64,
    event_seq: i64,
    event_hash: String,
    digest: String,
    public_key: String,
    signature: String,
    totals: Totals,
    grand_totals: Totals,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let server = if opts.mail { Some(opts.server.server()?) } else { None };
    let mut db = ctx.open(Access::Write)?;
    let (tenant, closed) =
        closures::close(&mut db, opts.stringer.whose(), opts.date, opts.key_file.as_deref())?;
    let shown: Vec<&Closure> = closed.made.iter().chain(closed.standing.iter()).collect();
    let rows: Vec<ClosureShown> = shown
        .iter()
        .map(|c| ClosureShown {
            stringer: tenant.handle().to_string(),
            seq: c.seq,
            day: c.day.to_string(),
            first_event_seq: c.first_event_seq,
            event_seq: c.event_seq,
            event_hash: c.event_hash.clone(),
            digest: c.digest.clone(),
            public_key: c.public_key.clone(),
            signature: c.signature.clone(),
            totals: c.totals().unwrap_or_default(),
            grand_totals: c.grand_totals().unwrap_or_default(),
        })
        .collect();
    match opts.format {
        Shown::Json => output::json(&rows)?,
        Shown::Table => {
            for row in &rows {
                print_closure(row)?;
            }
        }
    }
    if let Some(server) = &server {
        if !shown.is_empty() {
            let to = closures::mail_digests(&mut db, &tenant, &shown, server).map_err(|e| {
                anyhow::Error::from(e).context("the closure stands, but its digest was not e-mailed (run `receipts close --mail` again to send it)")
            })?;
            eprintln!(
                "the {} e-mailed to {to}",
                if shown.len() == 1 { "digest was" } else { "digests were" }
            );
        }
    }
    match (closed.made.len(), shown.is_empty()) {
        (0, false) => {
            eprintln!("{} was closed already and nothing is new since: the closure stands", shown[0].day)
        }
        (0, true) => eprintln!(
            "nothing to close for {} up to {}: no events since the last closure",
            tenant.handle(),
            opts.date.map_or("today".to_string(), |d| d.to_string())
        ),
        (made, _) => eprintln!("{} of {} made and signed", output::count(made, "closure"), tenant.handle()),
    }
    Ok(())
}

fn print_closure(c: &ClosureShown) -> std::io::Result<()> {
    output::line(&format!(
        "closure {} of {} ({}): events {}..{}, digest {}",
        c.seq, c.day, c.stringer, c.first_event_seq, c.event_seq, c.digest
    ))?;
    use crate::db::closures::{document_key_shown, Sum};
    use crate::domain::Price;
    let lines = |title: &str, sums: &std::collections::BTreeMap<String, Sum>, documents: bool| {
        sums.iter()
            .map(|(key, sum)| {
                let key = if documents { document_key_shown(key) } else { key.clone() };
                let vat = sum.vat_minor.map(|vat| format!(", VAT {}", Price(vat))).unwrap_or_default();
                format!("  {title} {key}: {} × {}{vat}", sum.count, Price(sum.amount_minor))
            })
            .collect::<Vec<_>>()
    };
    for line in lines("documents", &c.totals.documents, true)
        .into_iter()
        .chain(lines("voided", &c.totals.voids, false))
        .chain(lines("payments", &c.totals.payments, false))
        .chain(lines("till", &c.totals.till, false))
        .chain(lines("grand total", &c.grand_totals.documents, true))
    {
        output::line(&line)?;
    }
    output::line(&format!("  signed by key {}", signing::fingerprint(&c.public_key)))
}
