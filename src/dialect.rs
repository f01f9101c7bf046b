//! Server profiles: which server's dialect (commands, options, number formats, error texts,
//! argument-parsing order) the command layer reproduces. Handlers consult the
//! [`Profile`] in their [`crate::command::Ctx`] instead of hard-wiring a version.

/// One server profile (a server family and release line).
#[derive(Debug, PartialEq, Eq)]
pub struct Profile {
    /// The profile's name as `--compat` takes it, e.g. `redis-7.0`.
    pub name: &'static str,
}

/// Redis 7.0, the profile bitlens answered as before profiles existed.
pub static REDIS_7_0: Profile = Profile { name: "redis-7.0" };

impl Profile {
    /// The profile used when nothing says which server wrote the data (Redis 7.0).
    pub fn default_profile() -> &'static Profile {
        &REDIS_7_0
    }

    /// The profile named `name` as `--compat` takes it (`redis-7.0`, `valkey-9.0`, ...).
    pub fn from_name(name: &str) -> Option<&'static Profile> {
        [&REDIS_7_0].into_iter().find(|p| p.name == name)
    }
}

impl Profile {
    /// A sorted-set score as this server prints it in replies (ZSCORE, ZRANGE WITHSCORES, ...).
    pub fn format_score(&self, score: f64) -> String {
        crate::zset::format_score(score)
    }
}
