//! `BITLENS.*` extension commands (stub: filled in by the analytics work).

use super::CommandSpec;

/// Extension commands.
pub const COMMANDS: &[CommandSpec] = &[];
