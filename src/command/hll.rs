//! hll commands (stub: filled in by the hll work).

use super::CommandSpec;

/// hll commands.
pub const COMMANDS: &[CommandSpec] = &[];
