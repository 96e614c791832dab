package pluginhost

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// warmedServices are the gRPC services a run's host calls: go-plugin's
// own, then the tool and provider protocols. Hooks are left out: few runs
// have one.
var warmedServices = []protoreflect.FullName{
	"plugin.GRPCBroker", "plugin.GRPCController", "plugin.GRPCStdio",
	"harness.tool.v1.Tool", "harness.provider.v1.Provider",
}

var warmOnce sync.Once

// warmMessages builds, once per process, the encoding tables of the
// messages the host sends and receives (those of the services' methods and
// every message inside them). Protobuf builds a type's tables, and its
// file's full descriptor, on the type's first Marshal or Unmarshal: about a
// millisecond in all, paid otherwise within the first call of each kind,
// after the plugins' handshake, on the first model request's path. The
// first plugin start runs it, while the host waits for the handshake.
func warmMessages() {
	seen := map[protoreflect.FullName]bool{}
	var warm func(md protoreflect.MessageDescriptor)
	warm = func(md protoreflect.MessageDescriptor) {
		if seen[md.FullName()] {
			return
		}
		seen[md.FullName()] = true
		if mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName()); err == nil {
			_ = proto.Size(mt.New().Interface())
		}
		fields := md.Fields()
		for i := range fields.Len() {
			if f := fields.Get(i).Message(); f != nil {
				warm(f)
			}
		}
	}
	for _, name := range warmedServices {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(name)
		if err != nil {
			continue
		}
		sd, ok := d.(protoreflect.ServiceDescriptor)
		if !ok {
			continue
		}
		methods := sd.Methods()
		for i := range methods.Len() {
			warm(methods.Get(i).Input())
			warm(methods.Get(i).Output())
		}
	}
}
