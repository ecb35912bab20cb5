/** The text of `roundtrip --help`. */
export const USAGE = `Usage:
  roundtrip discover  <target>
  roundtrip tools     <target>
  roundtrip call      <target> <tool> [--arg k=v ...] [--args '{...}']
  roundtrip prompts   <target>
  roundtrip prompt    <target> <name> [--arg k=v ...]
  roundtrip resources <target>
  roundtrip read      <target> <uri>
  roundtrip task      <target> <taskId>

<target> is a Streamable HTTP URL (http://127.0.0.1:8000/mcp), or "-- command args..." to spawn a
stdio server: everything after "--" is the server's command line, so put the operands and options
before it, e.g.  roundtrip call provision --arg name=orders -- node server.js

Questions the server asks (elicitation forms, URL sign-ins, sampling) are asked in the terminal.
A tool the server runs as a task (the Tasks extension) is followed to its end; its id and status
changes are printed on stderr. Ctrl-C cancels it; "roundtrip task" resumes one whose run was cut off.

Options:
  --arg k=v               a tool or prompt argument (repeatable); typed by the tool's input schema
  --args '{...}'          all arguments as one JSON object (also accepted: --json '{...}')
  --json                  print the raw result JSON instead of readable text
  --answer key=json       answer the input request "key" without asking (repeatable). Forms: an
                          object of field values, or "decline" / "cancel"; URL: "accept" (consent),
                          "decline" or "cancel"; sampling: the assistant text as a JSON string
  --root path|file-uri    a root offered when the server asks roots/list (repeatable)
  --sampling-command cmd  answer sampling requests by running cmd (shell): the request JSON on its
                          stdin, the assistant text on its stdout
  --open                  open a consented URL with the platform opener (default: only print it)
  --trace                 print each round on stderr: what was asked, what was answered (never
                          values) and the requestState size (never its content)
  --no-tasks              do not declare the Tasks extension: task-capable tools run inline (and
                          tools that require a task are refused)
  --max-rounds n          input rounds allowed per request (default 10)
  --timeout ms            per-request timeout in milliseconds (default 60000, at most 2147483647)
  --env KEY=VALUE         an environment variable for the stdio server (repeatable)
  --bearer-env NAME       HTTP: send the token in environment variable NAME as a bearer token
  --oauth                 HTTP: sign in with OAuth when the server asks: the consent page is
                          printed (opened with --open) and the browser comes back to a listener on
                          127.0.0.1; each run signs in again, within --timeout (raise it for a
                          slow sign-in)
  --oauth-client-id id    with --oauth: a pre-registered client (its secret, if it has one, in
                          ROUNDTRIP_OAUTH_CLIENT_SECRET) instead of dynamic registration
  --oauth-port n          with --oauth: the callback listener's port (default: any free port)
  --oauth-store file      with --oauth: keep the registration and tokens in file (created with
                          mode 600; refused if others can read it), so later runs need no sign-in
  -h, --help              this help
  -V, --version           the version

Exit codes: 0 complete, 1 tool error (isError) or a failed --sampling-command, 2 usage (bad
arguments, a busy --oauth-port, a question with no --answer and no terminal), 3 protocol error
(server error, transport failure, rounds exceeded), 130 stopped by the user.`;
