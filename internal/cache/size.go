package cache

import (
	"reflect"
	"time"
)

// Size estimates the bytes v holds: its own, and what its pointers,
// slices (their whole capacity), strings, maps and interfaces reach, each
// pointer counted once. Time zones (*time.Location) are shared and not
// counted; channels and functions count their header only. A map is
// counted at twice its entries' size, for its buckets' slack. It walks the
// value with reflect: about a microsecond per hundred fields, so it suits
// values loaded once and read many times.
func Size(v any) int {
	if v == nil {
		return 0
	}
	rv := reflect.ValueOf(v)
	return int(rv.Type().Size()) + reached(rv, map[uintptr]struct{}{})
}

var locationType = reflect.TypeFor[*time.Location]()

// reached is the bytes v reaches beyond its own.
func reached(v reflect.Value, seen map[uintptr]struct{}) int {
	switch v.Kind() {
	case reflect.String:
		return v.Len()
	case reflect.Pointer:
		if v.IsNil() || v.Type() == locationType {
			return 0
		}
		p := v.Pointer()
		if _, ok := seen[p]; ok {
			return 0
		}
		seen[p] = struct{}{}
		e := v.Elem()
		return int(e.Type().Size()) + reached(e, seen)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		return int(e.Type().Size()) + reached(e, seen)
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n := v.Cap() * int(v.Type().Elem().Size())
		if holdsMore(v.Type().Elem()) {
			for i := range v.Len() {
				n += reached(v.Index(i), seen)
			}
		}
		return n
	case reflect.Array:
		n := 0
		if holdsMore(v.Type().Elem()) {
			for i := range v.Len() {
				n += reached(v.Index(i), seen)
			}
		}
		return n
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += reached(v.Field(i), seen)
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		t := v.Type()
		n := 2 * v.Len() * int(t.Key().Size()+t.Elem().Size())
		if holdsMore(t.Key()) || holdsMore(t.Elem()) {
			it := v.MapRange()
			for it.Next() {
				n += reached(it.Key(), seen) + reached(it.Value(), seen)
			}
		}
		return n
	}
	return 0
}

// holdsMore reports whether a value of t may reach bytes beyond its own.
func holdsMore(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return true
	case reflect.Array:
		return holdsMore(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if holdsMore(t.Field(i).Type) {
				return true
			}
		}
	}
	return false
}
