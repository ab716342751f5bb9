// Package lifecycle is the GSE process lifecycle: register, converge,
// operate and tear down a process on its hosts, what may exist after a
// failure, and what each step proved. It takes a plain desired state
// (Desired) rather than a family's Terraform model, so that every family of
// GSE processes runs the same steps; a family turns its model into Desired,
// and what Create and Update report back into its state.
package lifecycle
