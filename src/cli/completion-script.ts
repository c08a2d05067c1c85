// `checkpoint completion [bash|zsh]`: the shell script, ours rather than yargs' (which names one
// command and calls a bare `checkpoint`, possibly another tool's first on PATH). It completes
// both names and asks the distinctive `checkpoint-protocol` for the words (yargs answers
// `--get-yargs-completions`, see help.ts).

const NAMES = 'checkpoint checkpoint-protocol';
const ASK = 'checkpoint-protocol --get-yargs-completions';

const BASH = `###-begin-checkpoint-completions-###
#
# checkpoint-protocol command completion (for both names: checkpoint, checkpoint-protocol)
#
# Installation: checkpoint-protocol completion bash >> ~/.bashrc
#
_checkpoint_protocol_completions()
{
    local cur_word args type_list
    cur_word="\${COMP_WORDS[COMP_CWORD]}"
    args=("\${COMP_WORDS[@]}")
    mapfile -t type_list < <(${ASK} "\${args[@]}")
    mapfile -t COMPREPLY < <(compgen -W "$( printf '%q ' "\${type_list[@]}" )" -- "\${cur_word}" |
        awk '/ / { print "\\""$0"\\"" } /^[^ ]+$/ { print $0 }')
    if [ \${#COMPREPLY[@]} -eq 0 ]; then
      COMPREPLY=()
    fi
    return 0
}
complete -o bashdefault -o default -F _checkpoint_protocol_completions ${NAMES}
###-end-checkpoint-completions-###
`;

const ZSH = `#compdef ${NAMES}
###-begin-checkpoint-completions-###
#
# checkpoint-protocol command completion (for both names: checkpoint, checkpoint-protocol)
#
# Installation: checkpoint-protocol completion zsh >> ~/.zshrc
#
_checkpoint_protocol_completions()
{
  local reply
  local si=$IFS
  IFS=$'\\n' reply=($(COMP_CWORD="$((CURRENT-1))" COMP_LINE="$BUFFER" COMP_POINT="$CURSOR" ${ASK} "\${words[@]}"))
  IFS=$si
  if [[ \${#reply} -gt 0 ]]; then
    _describe 'values' reply
  else
    _default
  fi
}
if [[ "\${zsh_eval_context[-1]}" == "loadautofunc" ]]; then
  _checkpoint_protocol_completions "$@"
else
  compdef _checkpoint_protocol_completions ${NAMES}
fi
###-end-checkpoint-completions-###
`;

/** `shell`, or, when none is named, the shell the environment says runs. */
export function completionShell(shell: 'bash' | 'zsh' | undefined, env: NodeJS.ProcessEnv): 'bash' | 'zsh' {
  return (shell ? shell === 'zsh' : Boolean(env.ZSH_NAME) || /zsh/.test(env.SHELL ?? '')) ? 'zsh' : 'bash';
}

/** The script for `shell`, or, when none is named, for the shell the environment says runs. */
export function completionScript(shell: 'bash' | 'zsh' | undefined, env: NodeJS.ProcessEnv): string {
  return completionShell(shell, env) === 'zsh' ? ZSH : BASH;
}
