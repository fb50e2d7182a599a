package sched

// switchTo puts task t (or the stopper) on free CPU c.
func (m *Machine) switchTo(c int8, t int8) {
	m.clearMonitor(c) // monitor.go
	cpu := &m.cpus[c]
	if t == Stopper {
		cpu.Stopper = true
		m.event(Event{Kind: EvStopperIn, CPU: int(c), Task: -1})
		if m.shape.stopperInSync {
			m.syncCPU(c, "entering the stopper")
		}
		return
	}
	m.dequeue(t)
	cpu.Cur = t
	m.touched(taskBit(t))
	task := &m.tasks[t]
	task.State = Running
	task.CPU = c
	if task.Preempted && m.shape.excSync {
		// The task resumes by returning from the interrupt that
		// preempted it.
		m.syncCPUTask(c, "task %d returning from the interrupt that preempted it", t)
	}
	// The flag is read here alone: a running task's next leave sets or
	// clears it again. Cleared, it is hashed (hashTaskState) without
	// telling running tasks apart by their past.
	task.Preempted = false
	m.event(Event{Kind: EvSwitch, CPU: int(c), Task: int(t), PC: m.pcOf(t)})
	if m.tr.on && t < m.patcher {
		m.switchIn(c, t)
	}
}

// leave takes the current task off CPU c: a context switch on c.
// voluntary says whether the task gave the CPU up itself.
func (m *Machine) leave(c int8, voluntary bool) {
	m.clearMonitor(c) // a context switch (monitor.go)
	cpu := &m.cpus[c]
	t := cpu.Cur
	cpu.Cur = -1
	m.touched(taskBit(t))
	if t >= 0 {
		task := &m.tasks[t]
		task.CPU = -1
		if voluntary {
			task.NVCSW++
			task.Preempted = false
			m.taskQS(t)
		}
	}
	m.cpuQS(c)
}

// cpuQS notes a context switch (or idle) on CPU c for synchronize_sched.
func (m *Machine) cpuQS(c int8) {
	if m.gpKind == OpSyncSched && m.gpCPUs&(1<<c) != 0 {
		m.gpCPUs &^= 1 << c
		if m.gpCPUs == 0 {
			m.wakePatcher()
		}
	}
}

// taskQS notes a voluntary switch or exit of task t for synchronize_rcu_tasks.
func (m *Machine) taskQS(t int8) {
	if m.gpKind == OpSyncRCUTasks && m.gpTasks&(1<<t) != 0 {
		m.gpTasks &^= 1 << t
		if m.gpTasks == 0 {
			m.wakePatcher()
		}
	}
}

func (m *Machine) wakePatcher() {
	if m.cfg.Record {
		label := m.prog.Ops[m.pop-1].Label
		m.event(Event{Kind: EvWaitDone, CPU: -1, Task: int(m.patcher), Label: label, Op: m.gpKind.String(), Text: label + ": " + m.gpKind.String() + "() returns"})
	}
	m.gpKind = 0
	m.enqueue(m.patcher)
}

// exit ends task t on CPU c.
func (m *Machine) exit(c int8, t int8) {
	m.event(Event{Kind: EvExit, CPU: int(c), Task: int(t)})
	m.leave(c, false)
	m.tasks[t].State = Exited
	m.taskQS(t)
	m.checkDone()
}

func (m *Machine) checkDone() {
	for t := 0; t <= int(m.patcher); t++ {
		if m.tasks[t].State != Exited && !m.standIn(int8(t)) {
			return
		}
	}
	m.done = true
}
