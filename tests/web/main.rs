//! The counter in the browser (`receipts serve`) as its users meet it: pages and forms over
//! HTTP (sessions, CSRF, tenancy, headers, the day's actions) and in a real headless
//! Chromium over WebDriver.

#[path = "../support/mod.rs"]
mod support;

use std::process::Command;
use support::cli::*;
use support::shop::Shop;
use support::*;

mod browser;
mod web;
