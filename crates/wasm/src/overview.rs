//! `Engine.overview`: what the panel asks after a load, in one call (the database to open on,
//! the engine's info, the profiles, and per key template how many keys it matches and which
//! dates they carry), instead of one round trip per question and every matching key name sent
//! to the page only to be counted.

use tsify::Ts;
use wasm_bindgen::prelude::*;

use crate::types::{self, result};
use crate::Engine;

use bitlens_views::template::{date_of, glob, parts};

#[wasm_bindgen]
impl Engine {
    /// What a view needs after a load, in one call (`Overview`):
    /// - `db`: with `patterns` (Redis globs, the cards' keys) the database selected first —
    ///   the first holding a live key matching one of them, else the first holding any live
    ///   key, else the one selected — and selected; without (`null`), the selected database;
    /// - `info` (`info()` after that selection) and `profiles` (`profiles()`);
    /// - `templates`: per key template (`stats:active:{date}`: literal text and `{name}`
    ///   placeholders), `keys`, how many live keys of that database match its glob (every
    ///   placeholder `*`), and `dates`, the distinct `{date}`s (8 digits, `YYYYMMDD`, sorted)
    ///   of those keys that match the template whole (empty without a `{date}`).
    ///
    /// Counts are numbers; key names never leave the engine.
    pub fn overview(
        &mut self,
        patterns: Option<Vec<String>>,
        templates: Vec<String>,
    ) -> Result<Ts<types::Overview>, JsError> {
        if let Some(patterns) = patterns {
            let live: Vec<u64> = (self.session.databases().iter())
                .filter(|(_, ks)| ks.iter().next().is_some())
                .map(|(&d, _)| d)
                .collect();
            let hit = live.iter().copied().find(|d| {
                let ks = &self.session.databases()[d];
                ks.iter().any(|(k, _)| {
                    patterns
                        .iter()
                        .any(|p| bitlens::glob::matches(p.as_bytes(), k))
                })
            });
            if let Some(db) = hit.or(live.first().copied()) {
                self.session.select_database(db);
            }
        }
        let ks = self.ks();
        let counts = templates.into_iter().map(|template| {
            let parts = parts(&template);
            let glob = glob(&parts);
            let mut keys = 0u64;
            // (`YYYYMMDD` as a number: 8 digits; sorted and deduplicated as numbers.)
            let mut dates: Vec<u32> = Vec::new();
            for (k, _) in ks.iter() {
                if bitlens::glob::matches(&glob, k) {
                    keys += 1;
                    if let Some(d) = date_of(&parts, k) {
                        dates.push(d.iter().fold(0, |n, b| n * 10 + u32::from(b - b'0')));
                    }
                }
            }
            dates.sort_unstable();
            dates.dedup();
            types::TemplateCount {
                template,
                keys: keys as f64,
                dates: dates.iter().map(|d| format!("{d:08}")).collect(),
            }
        });
        let templates = counts.collect();
        result(&types::Overview {
            db: self.session.selected() as f64,
            info: self.info_of(),
            profiles: crate::profile_names(),
            templates,
        })
    }
}
