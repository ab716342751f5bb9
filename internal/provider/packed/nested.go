package packed

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/vmihailenco/msgpack/v5"
)

// This file holds what a packed value made of objects needs beyond one
// object: a codec read from a model's tags, lists of objects, and the objects
// as framework values for validators and checks written for them.

// CodecOf is the codec of the model T, whose fields each hold an attribute
// (*types.String, *types.Int64, *types.Float64 or *types.Bool) named by its
// tfsdk tag, as the framework reads models: the attribute names are written
// once, in the model.
func CodecOf[T any]() ObjectCodec[T] {
	t := reflect.TypeFor[T]()
	var c ObjectCodec[T]
	for i := range t.NumField() {
		name := t.Field(i).Tag.Get("tfsdk")
		c = append(c, Field[T]{Name: name, Field: func(v *T) any { return reflect.ValueOf(v).Elem().Field(i).Addr().Interface() }})
		var zero T
		if c[len(c)-1].Get(&zero) == nil {
			panic(fmt.Sprintf("packed.CodecOf: %s.%s is no attribute value", t, t.Field(i).Name))
		}
	}
	slices.SortFunc(c, func(a, b Field[T]) int { return cmp.Compare(a.Name, b.Name) })
	return c
}

// DecodeList reads a list of objects into *elems (nil when the list is null).
// *unknown marks the elements unknown as a whole, and stays nil when none
// is; st says whether the list itself is null or unknown.
func (c ObjectCodec[T]) DecodeList(d *msgpack.Decoder, elems *[]T, unknown *[]bool) (st State, err error) {
	if st, err := ReadState(d); err != nil || st != Known {
		return st, err
	}
	n, err := d.DecodeArrayLen()
	if err != nil || n < 0 {
		return Known, fmt.Errorf("not a list (%v)", err)
	}
	*elems = make([]T, n)
	for i := range *elems {
		whole, err := c.Decode(d, &(*elems)[i])
		if err != nil {
			return Known, fmt.Errorf("[%d]: %w", i, err)
		}
		if whole {
			if *unknown == nil {
				*unknown = make([]bool, n)
			}
			(*unknown)[i] = true
		}
	}
	return Known, nil
}

// Elements are elems as objects of t, unknown marking those unknown as a
// whole (nil: none), for validators and checks written for framework values.
func (c ObjectCodec[T]) Elements(elems []T, unknown []bool, t types.ObjectType) []attr.Value {
	out := make([]attr.Value, len(elems))
	for i := range elems {
		if unknown != nil && unknown[i] {
			out[i] = types.ObjectUnknown(t.AttrTypes)
			continue
		}
		obj := make(map[string]attr.Value, len(c))
		for _, f := range c {
			obj[f.Name] = f.Get(&elems[i])
		}
		out[i] = types.ObjectValueMust(t.AttrTypes, obj)
	}
	return out
}
