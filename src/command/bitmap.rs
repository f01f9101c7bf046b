//! bitmap commands (stub: filled in by the bitmap work).

use super::CommandSpec;

/// bitmap commands.
pub const COMMANDS: &[CommandSpec] = &[];
