package pretty

import (
	"testing"
	"unicode/utf8"
)

func TestShortFunction(t *testing.T) {
	tests := []struct{ in, want string }{
		{"main", "main"},
		{"ns::Halo<double>::exchange(int)", "ns::Halo<double>::exchange(int)"},
		// fits: kept whole, default template arguments and all
		{"std::vector<double, std::allocator<double> >::size() const", "std::vector<double, std::allocator<double> >::size() const"},
		// the innermost lists go first, then the next level, until it fits
		{"std::vector<double, std::allocator<double> >::_M_realloc_insert<double const&>(__gnu_cxx::__normal_iterator<double*, std::vector<double, std::allocator<double> > >, double const&)",
			"std::vector<…>::_M_realloc_insert<…>(__gnu_cxx::__normal_iterator<…>, double const&)"},
		{"app::Grid<app::Cell<double, 3>, app::Layout<app::Row, app::Padded<64> > >::exchange(app::Grid<app::Cell<double, 3>, app::Layout<app::Row, app::Padded<64> > >::Face)",
			"app::Grid<app::Cell<…>, app::Layout<…> >::exchange(app::Grid<app::Cell<…>, app::Layout<…> >::Face)"},
		{"std::map<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::vector<double, std::allocator<double> > >::operator[](std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)",
			"std::map<…>::operator[](std::__cxx11::basic_string<…> const&)"},
		// operators with angle brackets are names, not lists
		{"std::operator<< <std::char_traits<char> >(std::basic_ostream<char, std::char_traits<char> >&, char const*, app::Wide<app::Wider<app::Widest<int> > >)",
			"std::operator<< <…>(std::basic_ostream<…>&, char const*, app::Wide<…>)"},
		// no template lists left to elide: the parameters go
		{"app::compute(" + repeat("double, ", 20) + "double)", "app::compute(…)"},
		// brackets that do not pair up: left as they are
		{"f(" + repeat("a->b, ", 30) + ")", "f(…)"},
	}
	for _, tt := range tests {
		got := shortFunction(tt.in)
		if got != tt.want {
			t.Errorf("shortFunction(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
		if n := utf8.RuneCountInString(got); n > maxFunction && got != tt.in {
			t.Errorf("shortFunction(%q) is %d characters long", tt.in, n)
		}
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
