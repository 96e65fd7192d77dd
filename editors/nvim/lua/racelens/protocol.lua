-- The racelens extensions of LSP as this client speaks them: the mirror of the server's
-- server/lsp/src/payloads.rs, as editors/vscode/src/protocol.ts is for VS Code. One LuaLS
-- class per payload, with the same fields (the test `the_lua_protocol_mirrors_the_payloads`
-- in payloads.rs fails when the two disagree, as it does for protocol.ts), and the methods
-- and commands that carry them, which the other modules take from here. Every payload is
-- camelCase. editors/README.md documents them for other clients.

---@class racelens.Position
---@field line integer
---@field character integer

---@class racelens.Range
---@field start racelens.Position
---@field end racelens.Position

---@class racelens.Location
---@field uri string
---@field range racelens.Range

--- `racelens.exploreTest`'s argument: the test, as its lens names it.
---@class racelens.TestArgument
---@field class string
---@field method string
---@field uri? string
---@field heuristic? string
---@field seed? integer
---@field maxSchedules? integer
---@field again? boolean

--- The argument of `racelens.cancel`, `racelens.showSchedule`, `racelens.replay` and
--- `racelens.stepSchedule`, and the params of `racelens/schedule`.
---@class racelens.ResultArgument
---@field root string
---@field test string
---@field schedule? string

--- `racelens.copySchedule`'s argument.
---@class racelens.CopyArgument
---@field text string

--- The answer of `racelens.exploreTest` and `racelens.replay`.
---@class racelens.Queued
---@field queued boolean
---@field test? string

--- The answer of `racelens.cancel`.
---@class racelens.Cancelled
---@field cancelled integer

--- The params of `racelens/showDocument`.
---@class racelens.DocumentLink
---@field uri string

--- The answer of `racelens.showSchedule`.
---@class racelens.ScheduleLinks
---@field uri string
---@field html? string

--- The result of `racelens/document`.
---@class racelens.DocumentText
---@field text string
---@field languageId string

--- The result of `racelens/schedule`: a failing schedule's steps.
---@class racelens.ScheduleSteps
---@field test string
---@field headline string
---@field threads string[]
---@field steps racelens.ScheduleStep[]

---@class racelens.ScheduleStep
---@field mark 'step'|'preemption'|'switch'|'elided'|'failure'
---@field thread? integer
---@field text string
---@field location? racelens.Location

--- The params of `racelens/testStates` (this client does not ask for them; lenses say the
--- same).
---@class racelens.TestStates
---@field root string
---@field tests racelens.TestEntry[]

---@class racelens.TestEntry
---@field test string
---@field explore racelens.TestArgument
---@field range racelens.Range
---@field inherited? boolean
---@field state 'none'|'queued'|'running'|'passed'|'failed'|'unproven'|'errored'|'stale'
---@field message? string
---@field result? integer
---@field location? racelens.Location
---@field related? { location: racelens.Location, message: string }[]
---@field replay? string

--- The params of `racelens/selectionStatus`.
---@class racelens.SelectionStatus
---@field root string
---@field selected integer
---@field total integer
---@field impactedPairs integer
---@field tests racelens.StatusTest[]
---@field warnedMethods integer
---@field undecided string[]

--- One selected test of a status.
---@class racelens.StatusTest
---@field test string
---@field rank integer
---@field pairs integer
---@field warned integer
---@field evidence string
---@field explore racelens.TestArgument
---@field line integer

local M = {}

--- The requests and notifications of the extensions.
M.methods = {
  document = 'racelens/document',
  schedule = 'racelens/schedule',
  selection_status = 'racelens/selectionStatus',
  test_states = 'racelens/testStates',
  code_lens_refresh = 'racelens/codeLensRefresh',
  show_document = 'racelens/showDocument',
}

--- The server's commands (it advertises them).
M.server_commands = {
  explore = 'racelens.exploreTest',
  cancel = 'racelens.cancel',
  show_schedule = 'racelens.showSchedule',
  replay = 'racelens.replay',
}

--- Commands its lenses run that are the client's own (not advertised).
M.client_commands = {
  copy_schedule = 'racelens.copySchedule',
  step_schedule = 'racelens.stepSchedule',
}

return M
