//! The rule every batch of messages follows (`send --unsent`, `notify --pending`, `remind
//! --due`): one by one, going on past one that fails, and stopping when the mail server or
//! the database is gone, since the rest would fail alike. What was not sent goes with the
//! next run.

use crate::db::Tenant;
use crate::domain::OrderId;
use crate::error::Error;
use std::ops::ControlFlow;

/// How a batch went.
#[derive(Debug, Default)]
pub struct Tally {
    pub done: usize,
    /// "order 12 of anna", each that failed.
    pub failed: Vec<String>,
    /// Why the batch stopped half-way (the mail server or the database gone), if it did.
    pub stopped: Option<Error>,
}

impl Tally {
    /// Counts one that went (in a dry run: would go).
    pub fn went(&mut self) {
        self.done += 1;
    }

    /// Counts one that failed; `Break` when the batch must stop, keeping `error` as why.
    pub fn failed(&mut self, tenant: &Tenant, order: OrderId, error: Error) -> ControlFlow<()> {
        self.failed.push(format!("order {order} of {}", tenant.handle()));
        if matches!(
            error,
            Error::MailUnreachable { .. } | Error::Unreachable { .. } | Error::ConnectionLost(_)
        ) {
            self.stopped = Some(error);
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    }

    /// The batch's refusal: why it stopped, or that some of it failed. The others went, and
    /// running again sends only those.
    pub fn outcome(self) -> Result<(), Error> {
        match (self.stopped, self.failed.first()) {
            (Some(stopped), _) => Err(stopped),
            (None, Some(first)) => {
                Err(Error::NotAll { count: self.failed.len(), first: first.clone(), sending: true })
            }
            (None, None) => Ok(()),
        }
    }
}
