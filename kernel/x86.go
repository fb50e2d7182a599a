package kernel

import "errors"

func buildX86(cfg Config) (*Image, error) {
	return nil, errors.New("kernel: x86 text is not built yet")
}
