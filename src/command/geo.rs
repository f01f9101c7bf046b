//! geo commands (stub: filled in by the geo work).

use super::CommandSpec;

/// geo commands.
pub const COMMANDS: &[CommandSpec] = &[];
