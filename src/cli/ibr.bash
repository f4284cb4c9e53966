# bash completion for ibr, the command of ibroute (installed as
# share/bash-completion/completions/ibr). Commands; each command's options,
# read from 'ibr help COMMAND' so that they follow the installed ibr; engine
# names (and chains) after -R; dump names after --dumps; engine settings
# after --param; files elsewhere.

_ibr_engines()
{
    "$1" engines 2>/dev/null | awk '/^[^ ]/ { print $1 }'
}

_ibr()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local ibr=${COMP_WORDS[0]} cmd=${COMP_WORDS[1]}
    local commands="gen route reroute verify trace analyze sweep report order export info engines help"
    COMPREPLY=()
    if [[ $COMP_CWORD -eq 1 ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$commands --version --help" -- "$cur")
        return
    fi
    if [[ $cmd == help ]]; then
        [[ $COMP_CWORD -eq 2 ]] && mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
        return
    fi
    case $prev in
        -R|--routing-engine)
            # a chain: complete the engine after the last comma
            local head=""
            [[ $cur == *,* ]] && head=${cur%,*},
            mapfile -t COMPREPLY < <(compgen -P "$head" -W "$(_ibr_engines "$ibr")" -- "${cur##*,}")
            compopt -o nospace 2>/dev/null
            return
            ;;
        --dumps)
            # dump names, comma-separated: complete the one after the last comma
            local head=""
            [[ $cur == *,* ]] && head=${cur%,*},
            mapfile -t COMPREPLY < <(compgen -P "$head" -W "lfts subnet guid2lid mcfdbs sl2vl
                artifacts fdbs lid-matrix ibdmchk ibdiagnet default all none" -- "${cur##*,}")
            compopt -o nospace 2>/dev/null
            return
            ;;
        --param|--param-file)
            mapfile -t COMPREPLY < <(compgen -S = -W "$("$ibr" engines 2>/dev/null |
                awk '/^  [^ ]/ { print $1 }')" -- "$cur")
            compopt -o nospace 2>/dev/null
            return
            ;;
        --lmc|--seed|--threads|--max-vls|--max-reverse-hops|--from|--to|--qos-levels|\
        --random|--cables|--switches|--k-max|--trials|--title)
            return
            ;;
    esac
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$("$ibr" help "$cmd" 2>/dev/null |
            grep -oE -- '(^|[][ ,|])--?[A-Za-z][A-Za-z0-9-]*' | tr -d '[], |' | sort -u)" -- "$cur")
        return
    fi
    # the first operand of export is its format
    if [[ $cmd == export && $COMP_CWORD -eq 2 ]]; then
        mapfile -t COMPREPLY < <(compgen -W "codes sst-macro sst-merlin slurm-conf slurm-yaml orcs" \
            -- "$cur")
        return
    fi
    # anything else is a file (the default completion), or gen:SPEC
    if [[ $cur == g* && $cmd != gen ]]; then
        mapfile -t COMPREPLY < <(compgen -W "gen:" -- "$cur")
        [[ ${#COMPREPLY[@]} -gt 0 ]] && compopt -o nospace 2>/dev/null
    fi
}

complete -o default -o bashdefault -F _ibr ibr
