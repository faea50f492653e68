package launch

import (
	"slices"
	"strings"

	"github.com/mpidbg/mpidbg/internal/envvar"
)

// ownPreload puts the shim first in an LD_PRELOAD that the launcher's
// own options give the ranks (Hydra's -genv or -env LD_PRELOAD VALUE,
// Open MPI's -x LD_PRELOAD=VALUE), among args[:end]. Such an option
// overrides the one mpidbg adds (the later wins for Hydra, and Open MPI
// refuses two), so the shim joins it instead: the ranks get SHIM:VALUE,
// as they get the shim before an LD_PRELOAD of mpidbg's environment. When
// it finds one, env goes without its preload. out is a copy either way.
func ownPreload(f Flavor, args []string, end int, env []Var) (out []string, rest []Var) {
	i := slices.IndexFunc(env, func(v Var) bool { return v.Name == envvar.Preload })
	if i < 0 {
		return slices.Clone(args), env
	}
	shim, _, _ := strings.Cut(env[i].Value, ":")
	out = slices.Clone(args)
	ok := false
	for j := 0; j < end && j < len(out); j++ {
		switch {
		case f == Hydra && (out[j] == "-genv" || out[j] == "-env") && j+2 < len(out) && out[j+1] == envvar.Preload:
			out[j+2] = shim + ":" + out[j+2]
			ok = true
			j += 2
		case f == OpenMPI && out[j] == "-x" && j+1 < len(out) && strings.HasPrefix(out[j+1], envvar.Preload+"="):
			out[j+1] = envvar.Preload + "=" + shim + ":" + strings.TrimPrefix(out[j+1], envvar.Preload+"=")
			ok = true
			j++
		}
	}
	if !ok {
		return out, env
	}
	return out, slices.Delete(slices.Clone(env), i, i+1)
}
