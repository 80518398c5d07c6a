//! `receipts serve`: the counter in the browser, started with its options.

use super::Context;
use crate::db::Access;
use crate::web::{self, Config};
use crate::Error;
use chrono::TimeDelta;
use clap::Args;
use std::net::SocketAddr;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct Opts {
    /// The address and port to answer on; another than the loopback needs TLS or --allow-http
    #[arg(long, env = "RECEIPTS_LISTEN", default_value = "127.0.0.1:8080", value_name = "ADDR:PORT")]
    listen: SocketAddr,
    /// Where users reach the counter (e.g. https://shop.example), when a proxy stands in front:
    /// labels' QR codes open its pages, and an https address marks cookies Secure
    #[arg(long, env = "RECEIPTS_BASE_URL", value_name = "URL")]
    base_url: Option<String>,
    /// The TLS certificate chain (PEM): the counter speaks HTTPS itself
    #[arg(long, requires = "tls_key", value_name = "FILE")]
    tls_cert: Option<PathBuf>,
    /// The TLS certificate's private key (PEM)
    #[arg(long, requires = "tls_cert", value_name = "FILE")]
    tls_key: Option<PathBuf>,
    /// Answer plain HTTP on an address other than the loopback: only behind a proxy that
    /// speaks TLS to the browsers (docs/DEPLOY.md)
    #[arg(long)]
    allow_http: bool,
    /// Minutes a session lasts without use
    #[arg(long, default_value = "720", value_name = "MINUTES", value_parser = clap::value_parser!(u32).range(1..=525_600))]
    session_idle: u32,
    /// The mail server of the documents and ready notices sent from the counter
    #[command(flatten)]
    server: super::notify::ServerOpt,
    /// Where the stringers' signing keys are (HANDLE.ed25519): after the first request of a
    /// day, each stringer's yesterday is closed and signed [default: keys/ in the data
    /// directory]
    #[arg(long, env = "RECEIPTS_KEY_DIR", hide_env_values = true, value_name = "DIR")]
    key_dir: Option<PathBuf>,
}

pub fn run(opts: Opts, ctx: &Context) -> anyhow::Result<()> {
    let tls = opts.tls_cert.zip(opts.tls_key);
    if tls.is_none() && !opts.listen.ip().is_loopback() && !opts.allow_http {
        return Err(Error::Usage(format!(
            "--listen {}: passwords would cross the network in clear; give --tls-cert and --tls-key, or \
             --allow-http behind a proxy that speaks TLS",
            opts.listen
        ))
        .into());
    }
    if let Some(base) = &opts.base_url {
        let fine =
            url::Url::parse(base).is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.has_host());
        if !fine {
            return Err(
                Error::Usage(format!("--base-url {base:?} is not a web address (https://HOST/...)")).into()
            );
        }
    }
    // Opened once here: a new SQLite file is created and migrated, and a database that does
    // not answer is said before anything listens.
    let mut db = ctx.open(Access::Write)?;
    // A shop without an account yet: a fresh one-time code for its first run, logged with
    // the address once it listens.
    let setup_code = crate::ops::setup::new_code(&mut db)?;
    drop(db);
    let (url, lock_timeout) = ctx.database()?;
    web::serve(Config {
        url,
        lock_timeout,
        listen: opts.listen,
        base_url: opts.base_url.map(|b| b.trim_end_matches('/').to_string()),
        tls,
        session_idle: TimeDelta::minutes(i64::from(opts.session_idle)),
        smtp: opts.server.configured()?,
        key_dir: opts.key_dir,
        setup_code,
    })?;
    Ok(())
}
