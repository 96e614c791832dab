package pluginhost

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// TestWarmedServicesExist: every service whose messages New warms is one
// this binary has; a renamed service would leave its messages cold.
func TestWarmedServicesExist(t *testing.T) {
	t.Parallel()
	for _, name := range warmedServices {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(name)
		if _, ok := d.(protoreflect.ServiceDescriptor); err != nil || !ok {
			t.Errorf("service %s: %v (%T)", name, err, d)
		}
	}
}
