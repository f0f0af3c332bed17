"""How the cards of a build reach each other over PCIe: peer-to-peer, or through host memory.

One rule for every statement the planner makes about it (the PCIe checks, the recommendation's all-reduce
estimate): the chip's `p2p` where the catalog states it, else off on GeForce cards of the architectures in
`params.NO_P2P_GEFORCE` (GeForce RTX 20 to 50, where NVIDIA's current drivers disable it, with the sources
there), else on.
"""


from planner.models.parts import GpuChip
from planner.physics import params


def peer_to_peer(chip: GpuChip) -> bool:
    """Whether the driver lets two cards of `chip` read and write each other's memory over PCIe."""
    if chip.p2p is not None:
        return chip.p2p
    return not ("GeForce" in chip.name and chip.architecture in params.NO_P2P_GEFORCE.values)
