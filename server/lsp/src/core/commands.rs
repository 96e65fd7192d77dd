//! `workspace/executeCommand`, answered on the core thread: the exploration commands start
//! or stop work that runs in the background (`core::explore`), the others answer at once.

use serde_json::Value;
use tower_lsp_server::ls_types::*;

use super::{Core, PANIC_COMMAND};
use crate::lenses;

impl Core {
    pub(super) fn execute(&mut self, command: &str, arguments: &[Value]) -> Result<Option<Value>, String> {
        let arg = arguments.first().cloned().unwrap_or(Value::Null);
        match command {
            lenses::EXPLORE_COMMAND => self.explore_command(&arg),
            lenses::CANCEL_COMMAND => Ok(Some(self.cancel_command(&arg))),
            lenses::SHOW_COMMAND => self.show_schedule_command(&arg),
            lenses::REPLAY_COMMAND => self.replay_command(&arg),
            lenses::STEP_COMMAND => Err(format!("`{command}` is the editor's own command (its stepper); run it in the editor, or ask for the steps with the `racelens/schedule` request")),
            lenses::COPY_COMMAND => {
                // Clients copy to their clipboard themselves; one that sends this to us gets
                // the text to copy, and sees it.
                let text = arg["text"].as_str().unwrap_or_default().to_string();
                self.show(MessageType::INFO, text.clone());
                Ok(Some(Value::String(text)))
            }
            PANIC_COMMAND if self.test_commands => panic!("{PANIC_COMMAND} was run"),
            _ => Err(format!("unknown command `{command}`")),
        }
    }
}
